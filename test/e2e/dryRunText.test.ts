/**
 * Dry Run written as an expression, in a real n8n 2.40.7 (`n8n execute`): n8n hands the node whatever
 * the expression gives. The text "true" (what `$vars` and `$env` always give, and what a sheet's cell
 * often holds) and the number 1 are on: the sandbox receives no write. The text "false" is refused
 * before anything is sent (only a real false turns a guard off). Each case is counted in the sandbox's
 * own request log, not in what the node says.
 * `$vars` itself needs an n8n licence, and `$env` is blocked in nodes by default in 2.x: the text
 * expressions stand in for them (the same value reaches the node).
 */
import { randomBytes } from 'node:crypto';

import { nodeItems } from '../../harness/executions';
import { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { startSandboxStage, stopAll, type SandboxStage } from '../../harness/stage';
import { action, graph, type NodeSpec } from '../../harness/workflows';

jest.setTimeout(240_000);

let stage: SandboxStage;
let n8n: N8nInstance;
const credential = { id: 'chDryRunText0001', name: 'Clearinghouse sandbox (dry run as text)' };
const run = randomBytes(4).toString('hex');

beforeAll(async () => {
	stage = await startSandboxStage({});
	n8n = await N8nInstance.create();
	await n8n.importCredential(sandboxCredential(stage.sandbox, credential.id, credential.name));
});
afterAll(async () => {
	await stopAll(n8n, stage?.sandbox);
});

/** Create with Dry Run set to `dryRun` (an n8n expression), after a Set node giving `row`. */
function workflow(id: string, dryRun: string, row: Record<string, unknown>) {
	const rows: NodeSpec = {
		name: 'Row',
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		parameters: { mode: 'raw', jsonOutput: JSON.stringify(row) },
	};
	const create = action('Pay Bob', 'paymentOrder', 'create', {
		mode: 'standard',
		fromUserId: stage.alice.id,
		toAddress: stage.bobEth,
		toChain: 'ethereum',
		asset: 'USDC',
		amountUsd: '25',
		expiry: 'inMinutes',
		expiresInMinutes: 60,
		memo: `e2e dry run ${id} ${run}`,
		idempotencyKeyMode: 'custom',
		idempotencyKey: `e2e-dry-${id}-${run}`,
		options: { dryRun },
	});
	return graph(
		`e2eDryRunText${id}`.slice(0, 16).padEnd(16, '0'),
		`e2e: dry run as ${id}`,
		[{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 }, rows, create],
		[
			['Start', 'Row'],
			['Row', 'Pay Bob'],
		],
		credential,
	);
}

async function runOnce(id: string, dryRun: string, row: Record<string, unknown> = {}) {
	const workflowId = await n8n.importWorkflow(workflow(id, dryRun, row));
	const mark = await stage.operator.mark();
	const result = await n8n.execute(workflowId);
	const writes = (await stage.operator.requests(mark)).filter((r) => r.method !== 'GET');
	return { result, writes };
}

test.each([
	['text', '={{ "true" }}', {}],
	['number', '={{ 1 }}', {}],
	['json', '={{ $json.dryRun }}', { dryRun: 'true' }],
])('Dry Run given as %s that reads as on sends no write and outputs the request it would send', async (id, dryRun, row) => {
	const { result, writes } = await runOnce(id, dryRun, row);
	expect(writes).toEqual([]);
	if (result.code !== 0 || !result.run) throw new Error(`n8n execute exited ${result.code ?? result.signal}\n${result.stdout.slice(-3000)}`);
	const [item] = nodeItems(result.run.data, 'Pay Bob');
	expect(item).toMatchObject({ dryRun: true, request: { method: 'POST', path: '/payment' } });
});

test('Dry Run given as the text "false" is refused, naming the field and the value, and sends nothing', async () => {
	const { result, writes } = await runOnce('false', '={{ "false" }}');
	expect(writes).toEqual([]);
	expect(result.run?.status).toBe('error');
	const error = (result.run?.data as { resultData?: { error?: { message?: string; description?: string } } } | undefined)?.resultData?.error;
	const said = `${error?.message ?? ''} ${error?.description ?? ''}`;
	expect(said).toContain('Dry Run');
	expect(said).toContain('the text "false"');
});
