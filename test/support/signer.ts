/** The tests' own webhook signer, independent of the shipped one: harness/signer.ts (the queue stress load signs with it too). */
export * from '../../harness/signer';
