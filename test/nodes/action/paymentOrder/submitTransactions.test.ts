/** Payment Order → Submit Transactions, over real HTTP against the sandbox. */
import { walletOf } from '../../../../harness/sandboxClient';
import { createOrder, createSubaccountOrder, useEnv } from '../support';
import { sleeps } from '../../../support/sleep';

// The node's waits between submissions and the transport's backoff are recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

describe('Submit Transactions', () => {
	const submit = (id: string, hash: string, options = {}) => ({
		resource: 'paymentOrder',
		operation: 'submitTransactions',
		paymentOrderId: { mode: 'id', value: id },
		transactions: { transaction: [{ hash, chain: 'ethereum' }] },
		options,
	});
	/** alice's deposit of 125.5 USDC on ethereum to the order (seen by the indexer unless `indexed: false`); its hash. */
	const deposit = async (paymentOrderId: string, extra: { indexed?: boolean } = {}): Promise<string> =>
		(
			await env.op('POST', '/deposits', {
				paymentOrderId,
				sender: walletOf(env.alice, 'ethereum'),
				chain: 'ethereum',
				asset: 'USDC',
				amountUsd: 125.5,
				...extra,
			})
		).transactionHash;

	test('an indexed hash is processed', async () => {
		const id = await createOrder(env);
		const transactionHash = await deposit(id);
		await env.mark();
		const [item] = await env.run(submit(id, transactionHash));
		expect(item.json).toMatchObject({ paymentOrderId: id, transfersProcessed: 1, indexed: true, attempts: 1 });
		expect(item.json).not.toHaveProperty('hint');
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: `/api/v1/payment-orders/${id}/transactions` });
		expect(req.body).toEqual({ transactions: [{ hash: transactionHash, chain: 'ethereum' }] });
	});

	test("a subaccount's order: Subaccount ID goes in the body, and in the query of the order read after 0 processed", async () => {
		const { id, sub } = await createSubaccountOrder(env);
		await env.mark();
		const [item] = await env.run(submit(id, '0xnotseen', { subaccountId: sub }));
		expect(item.json).toMatchObject({ transfersProcessed: 0, indexed: false, notIndexed: ['0xnotseen'] });
		const reqs = await env.requests();
		expect(reqs.map((r) => `${r.status} ${r.method} ${r.path}`)).toEqual([
			`200 POST /api/v1/payment-orders/${id}/transactions`,
			`200 GET /api/v1/payment-orders/${id}`,
		]);
		expect(reqs[0].body).toEqual({ transactions: [{ hash: '0xnotseen', chain: 'ethereum' }], subaccountId: sub });
		expect(reqs[1].query).toEqual({ subaccountId: sub });
	});

	test('transfersProcessed 0 is reported as not indexed, with a hint', async () => {
		const id = await createOrder(env);
		const transactionHash = await deposit(id, { indexed: false });
		await env.mark();
		const [item] = await env.run(submit(id, transactionHash));
		expect(item.json).toMatchObject({
			transfersProcessed: 0,
			indexed: false,
			attempts: 1,
			alreadyAttributed: [],
			notIndexed: [transactionHash],
		});
		expect(item.json.hint).toMatch(/indexer/);
	});

	test('retries while not indexed, seconds apart, until the indexer sees the hash', async () => {
		const id = await createOrder(env);
		const transactionHash = await deposit(id, { indexed: false });
		await env.mark();
		// The indexer sees the hash during the node's first wait (recorded, not waited).
		sleeps.asked = [];
		sleeps.meanwhile = async () => {
			sleeps.meanwhile = undefined;
			await env.op('POST', `/deposits/${transactionHash}/index`);
		};
		const [item] = await env.run(submit(id, transactionHash, { indexRetries: 3, indexRetryDelaySeconds: 1 }));
		expect(item.json).toMatchObject({ transfersProcessed: 1, indexed: true, attempts: 2 });
		expect(sleeps.asked).toEqual([1000]);
		const reqs = await env.requests();
		// The unprocessed submission is followed by a read of the order.
		expect(reqs.filter((r) => r.method === 'POST')).toHaveLength(2);
		expect(reqs.filter((r) => r.method === 'GET')).toHaveLength(1);
	}, 15_000);

	test('a lost answer: the repeat processes 0, and the order shows the hash was attributed', async () => {
		const id = await createOrder(env);
		const transactionHash = await deposit(id);
		await env.op('POST', '/faults', { method: 'POST', path: '/transactions$', count: 1, commitThen500: true });
		await env.mark();
		const [item] = await env.run(submit(id, transactionHash, { indexRetries: 2, indexRetryDelaySeconds: 1 }));
		expect(item.json).toMatchObject({ transfersProcessed: 0, indexed: true, alreadyAttributed: [transactionHash], attempts: 1 });
		expect(item.json).not.toHaveProperty('hint');
		expect((await env.requests()).map((r) => `${r.method} ${r.status}`)).toEqual(['POST 500', 'POST 200', 'GET 200']);
	});

	test.each([
		[{ indexRetries: 'three' }, 'Retries While Not Indexed must be a whole number from 0 to 10 (got "three")'],
		[{ indexRetries: 2.5 }, 'Retries While Not Indexed must be a whole number from 0 to 10 (got 2.5)'],
		[{ indexRetries: 11 }, 'Retries While Not Indexed must be a whole number from 0 to 10 (got 11)'],
		[{ indexRetries: 2, indexRetryDelaySeconds: 'soon' }, 'Seconds Between Retries must be a number from 1 to 60 (got "soon")'],
		[{ indexRetries: 2, indexRetryDelaySeconds: 0 }, 'Seconds Between Retries must be a number from 1 to 60 (got 0)'],
	])('refuses retry options it cannot read (%j) before sending, naming the field', async (options, message) => {
		const id = await createOrder(env);
		await env.mark();
		await expect(env.run(submit(id, '0xnotseen', options))).rejects.toThrow(message);
		expect(await env.requests()).toEqual([]);
	});

	test('refuses an empty list before sending', async () => {
		const id = await createOrder(env);
		await expect(env.run({ ...submit(id, 'x'), transactions: {} })).rejects.toThrow('Transactions: add at least one transaction hash');
		expect(await env.requests()).toEqual([]);
	});
});
