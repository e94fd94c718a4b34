/** Payment Order → Set Return Details, over real HTTP against the sandbox. */
import { walletOf } from '../../../../harness/sandboxClient';
import { createOrder, createSubaccountOrder, returnDetails, useEnv } from '../support';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

describe('Set Return Details', () => {
	const params = (id: string, extra = {}) => returnDetails(env, id, extra);

	test('reads the current revision, then PUTs with quoted If-Match and Idempotency-Key', async () => {
		const id = await createOrder(env);
		const [first] = await env.run(params(id));
		let reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/payment-orders/${id}`, `PUT /api/v1/payment-orders/${id}/return-details`]);
		expect(reqs[1].headers['if-match']).toBe('"0"');
		expect(reqs[1].headers['idempotency-key']).toBe(first.json.idempotencyKey);
		expect(reqs[1].body).toEqual({
			userId: env.alice.id,
			wallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }],
		});
		expect(first.json).toMatchObject({ revision: 1, expectedRevision: 0, revisionSource: 'read' });
		// A second replacement reads revision 1.
		await env.mark();
		const [second] = await env.run(params(id, { idempotencyKeyMode: 'custom', idempotencyKey: 'ret-2' }));
		reqs = await env.requests();
		expect(reqs[1].headers['if-match']).toBe('"1"');
		expect(reqs[1].headers['idempotency-key']).toBe('ret-2');
		expect(second.json.revision).toBe(2);
	});

	test('a given revision is sent without reading the order; a stale one is a 409', async () => {
		const id = await createOrder(env);
		await expect(env.run(params(id, { options: { revision: 5 } }))).rejects.toMatchObject({ httpCode: '409' });
		const reqs = await env.requests();
		expect(reqs.map((r) => r.method)).toEqual(['PUT']);
		expect(reqs[0].headers['if-match']).toBe('"5"');
	});

	test("a subaccount's order: Subaccount ID goes in the query of the revision read and in the body of the PUT", async () => {
		const { id, sub } = await createSubaccountOrder(env);
		await env.mark();
		await env.run(params(id, { options: { subaccountId: sub } }), { continueOnFail: true });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/payment-orders/${id}`, `PUT /api/v1/payment-orders/${id}/return-details`]);
		expect(reqs[0]).toMatchObject({ status: 200, query: { subaccountId: sub } });
		expect(reqs[1].body).toEqual({
			userId: env.alice.id,
			wallets: [{ chain: 'ethereum', address: walletOf(env.alice, 'ethereum') }],
			subaccountId: sub,
		});
	});

	test('refuses two wallets on one chain before sending', async () => {
		const id = await createOrder(env);
		const wallets = {
			wallet: [
				{ chain: 'ethereum', address: '0x1' },
				{ chain: 'ethereum', address: '0x2' },
			],
		};
		await expect(env.run(params(id, { wallets }))).rejects.toThrow(/one wallet per chain; "ethereum"/);
		expect(await env.requests()).toEqual([]);
	});
});
