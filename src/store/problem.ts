/** One finding of a verification; errors block a publish and fail `mmds verify`. */
export interface Problem {
  severity: 'error' | 'warning';
  check: 'checksum' | 'chain' | 'knowledge' | 'rights' | 'reference';
  message: string;
}
