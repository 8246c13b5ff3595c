#!/usr/bin/env node
// Entry point of the `mmds` command. Node >= 22.18 runs the TypeScript sources directly
// (type stripping); npm scripts and npx put the project's Node 24 first on PATH.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `mmds: needs Node 22.18 or later (this is ${process.version}); run it through npm (npm run mmds -- ...) or npx mmds, which use the project's Node 24\n`,
  );
  process.exit(1);
}
// Node keeps the compiled (and type-stripped) modules in its compile cache under the system's
// temporary directory: a later start skips most of that work. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
await import('../src/cli/main.ts');
