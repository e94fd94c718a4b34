/** The tests' sandbox client: harness/sandboxClient.ts (bench/ and scripts/ use it from there too). */
export * from '../../harness/sandboxClient';
