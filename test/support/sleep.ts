/**
 * n8n-workflow's `sleep`, recorded and (while `sleeps.instant`) not waited, for a test file whose
 * requests go through the transport's backoff between retries (0.5, 1, 2 s: 3.5 s per retried
 * request). The requests stay real; only the waits between them are skipped, and each wait asked
 * for is kept in `sleeps.asked`, so a test can check the backoff too. In the test file:
 *
 *   jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../support/sleep')>('../../support/sleep').n8nWorkflowWithRecordedSleep());
 *
 * Every module of ours that file loads (the nodes, the harness) then gets n8n-workflow with this `sleep`;
 * n8n-core, loaded once per worker (test/support/oncePerWorker/environment.js), keeps the real one.
 */
export const sleeps = {
	instant: true,
	asked: [] as number[],
	/** Runs in each wait, before it ends: what happens "meanwhile" (the indexer sees a hash, say). */
	meanwhile: undefined as undefined | ((ms: number) => Promise<void> | void),
};

export function n8nWorkflowWithRecordedSleep(): object {
	const actual = jest.requireActual<typeof import('n8n-workflow')>('n8n-workflow');
	return {
		...actual,
		__esModule: true,
		sleep: async (ms: number) => {
			sleeps.asked.push(ms);
			await sleeps.meanwhile?.(ms);
			if (!sleeps.instant) await actual.sleep(ms);
		},
	};
}
