/** Our nodes in n8n-core's real execution contexts: harness/n8nContexts.ts (bench/confirmation.ts runs the trigger in them too). */
export * from '../../harness/n8nContexts';
