/**
 * Payment Order → Create reads each row's parameters once per run (issue 45): the router checks every
 * row before the first is sent (checkRow), then sends each; both read the same values, so a batch whose
 * fields are expressions pays n8n's expression engine once per field and row, not twice. And n8n's deep
 * copy of the node (getNode) is taken a fixed number of times per run, not several times per row.
 * Counted on n8n-core's own execute context, over real HTTP against the sandbox.
 */
import { ExecuteContext } from 'n8n-core';

import { walletOf } from '../../../../../harness/sandboxClient';
import { json, payment, useEnv } from '../../support';

const env = useEnv();

afterEach(() => jest.restoreAllMocks());

/**
 * Parameter reads per name and item during one run of the node: n8n-core's execute context answers
 * every getNodeParameter (and resolves its expressions) in `_getNodeParameter`.
 */
async function countedReads(run: () => Promise<unknown>): Promise<Map<string, number>> {
	const reads = new Map<string, number>();
	const prototype = ExecuteContext.prototype as unknown as Record<'_getNodeParameter', (...args: unknown[]) => unknown>;
	const original = prototype._getNodeParameter;
	jest.spyOn(prototype, '_getNodeParameter').mockImplementation(function (this: ExecuteContext, ...args: unknown[]) {
		const [name, itemIndex] = args as [string, number];
		reads.set(`${name}#${itemIndex}`, (reads.get(`${name}#${itemIndex}`) ?? 0) + 1);
		return original.apply(this, args);
	});
	await run();
	return reads;
}

it('reads each field of a row once, though every row is checked before any is sent', async () => {
	const rows = [0, 1, 2].map((n) => ({ json: { to: ` ${walletOf(env.bob, 'ethereum')} `, amount: `${n + 1}.25`, invoice: `READ-ONCE-${n}` } }));
	const reads = await countedReads(async () => {
		const out = await env.run(
			payment(env, {
				// Expressions n8n's engine evaluates (not a plain `$json` path, which the node reads itself).
				toAddress: '={{ $json.to.trim() }}',
				amountUsd: '={{ String($json.amount) }}',
				memo: '={{ "paid " + $json.invoice }}',
				expiry: 'at',
				expiresAt: `={{ "${new Date(Date.now() + 3600_000).toISOString()}" }}`,
				idempotencyKeyMode: 'custom',
				idempotencyKey: '={{ $json.invoice }}',
			}),
			{ items: rows, executionId: `read-once-${Date.now()}` },
		);
		expect(json(out).map((o) => o.memo)).toEqual(['paid READ-ONCE-0', 'paid READ-ONCE-1', 'paid READ-ONCE-2']);
	});
	for (const item of [0, 1, 2]) {
		for (const name of ['toAddress', 'memo', 'expiresAt', 'fromUserId', 'toChain', 'asset']) {
			expect({ name, item, reads: reads.get(`${name}#${item}`) }).toEqual({ name, item, reads: 1 });
		}
	}
	const sent = (await env.requests()).filter((r) => r.method === 'POST');
	expect(sent.map((r) => [r.body.toAddress, r.body.amountUsd, r.body.idempotencyKey])).toEqual(
		[0, 1, 2].map((n) => [walletOf(env.bob, 'ethereum'), n + 1.25, `READ-ONCE-${n}`]),
	);
});

it("reads n8n's copy of the node a fixed number of times per run, not per row", async () => {
	const prototype = ExecuteContext.prototype as unknown as Record<'getNode', (...args: unknown[]) => unknown>;
	const original = prototype.getNode;
	let calls = 0;
	jest.spyOn(prototype, 'getNode').mockImplementation(function (this: ExecuteContext, ...args: unknown[]) {
		calls++;
		return original.apply(this, args);
	});
	const copiesFor = async (rows: number) => {
		calls = 0;
		const items = Array.from({ length: rows }, (_, n) => ({ json: { amount: `${n + 1}.5`, invoice: `NODE-COPY-${rows}-${n}` } }));
		await env.run(payment(env, { amountUsd: '={{ $json.amount }}', idempotencyKeyMode: 'custom', idempotencyKey: '={{ $json.invoice }}' }), {
			items,
			executionId: `node-copy-${rows}-${Date.now()}`,
		});
		return calls;
	};
	const few = await copiesFor(2);
	const many = await copiesFor(8);
	expect({ few, many }).toEqual({ few, many: few });
});
