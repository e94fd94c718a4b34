/** The queue suite's stress load lives in harness/queue/stress.ts (bench/queue-stress.ts runs it too). */
export * from '../../harness/queue/stress';
