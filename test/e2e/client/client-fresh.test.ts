import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA_FILE, writeClientSchema } from '../../../scripts/generate-client.ts';
import { createTempDir } from '../../helpers/temp-dir.ts';

describe('the committed TypeScript client is generated from the current OpenAPI document', () => {
  const temp = createTempDir('mmds-client-fresh-');
  afterAll(() => temp.remove());

  it('regenerating gives the committed clients/typescript/src/schema.ts byte for byte', async () => {
    const fresh = readFileSync(await writeClientSchema(join(temp.dir, 'schema.ts')), 'utf8');
    const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
    expect(fresh.length).toBeGreaterThan(1000);
    if (fresh !== committed) {
      expect.fail(
        'clients/typescript/src/schema.ts is stale: the OpenAPI document changed. Run `npm run client:generate` and commit the result.',
      );
    }
  });
});
