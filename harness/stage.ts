/**
 * What a real-n8n test file (test/e2e, test/queue) starts once for all its tests, in its beforeAll: the
 * sandbox in this process, its operator client and the seed as it started (alice pays, bob is paid);
 * and the one way it stops what it started, in its afterAll.
 */
import type { SandboxOptions } from '../sandbox/server';
import { startSandbox } from './sandbox';
import { SandboxClient, userOf, walletOf } from './sandboxClient';

export interface SandboxStage {
	sandbox: Awaited<ReturnType<typeof startSandbox>>;
	operator: SandboxClient;
	/** The operator API's state at start (users, wallets, account). */
	state: any;
	/** The seed's alice: the payer of the files' orders. */
	alice: any;
	/** The seed's bob: the payee. */
	bob: any;
	/** Bob's wallet addresses on ethereum and solana (every seed with users gives him both). */
	bobEth: string;
	bobSol: string;
}

export async function startSandboxStage(options: SandboxOptions = {}): Promise<SandboxStage> {
	const sandbox = await startSandbox(options);
	const operator = new SandboxClient(sandbox);
	const state = await operator.state();
	const alice = userOf(state, 'alice');
	const bob = userOf(state, 'bob');
	return { sandbox, operator, state, alice, bob, bobEth: walletOf(bob, 'ethereum'), bobSol: walletOf(bob, 'solana') };
}

type Stoppable = { dispose(): Promise<unknown> } | { close(): Promise<unknown> };

/**
 * Stops what a test file started, one after the other in the order given (n8n before the sandbox it
 * calls; a browser before the n8n it shows); skips what never started (a beforeAll that failed early).
 */
export async function stopAll(...started: Array<Stoppable | undefined>): Promise<void> {
	for (const piece of started) {
		if (!piece) continue;
		if ('dispose' in piece) await piece.dispose();
		else await piece.close();
	}
}
