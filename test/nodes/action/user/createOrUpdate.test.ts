/** User, over real HTTP against the sandbox. */
import { useEnv } from '../support';

// The transport's backoff between retries is recorded, not waited (the requests stay real).
jest.mock('n8n-workflow', () => jest.requireActual<typeof import('../../../support/sleep')>('../../../support/sleep').n8nWorkflowWithRecordedSleep());

const env = useEnv();

describe('User', () => {
	const base = (extra = {}) => ({
		resource: 'user',
		operation: 'createOrUpdate',
		label: 'dave',
		wallets: { wallet: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }] },
		...extra,
	});

	test('creates a user; return wallets omitted by default', async () => {
		const [item] = await env.run(base());
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'POST', path: '/api/v1/add-user-record' });
		expect(req.body).toEqual({
			label: 'dave',
			wallets: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }],
		});
		expect(item.json).toMatchObject({ label: 'dave', wallets: [{ chain: 'ethereum', status: 'PENDING' }] });
		expect(typeof item.json.id).toBe('string');
	});

	test('replace sends the list; an empty list clears; subaccount goes in the body', async () => {
		const returnWallets = { wallet: [{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }] };
		await env.run(base({ returnWalletsMode: 'replace', returnWallets }));
		await env.run(base({ returnWalletsMode: 'replace', returnWallets: {} }));
		const sub = env.state.subaccounts[0].id;
		await env.run(base({ additionalFields: { subaccountId: sub } }));
		const reqs = await env.requests();
		expect(reqs[0].body.returnWallets).toEqual([{ chain: 'ethereum', address: '0x00000000000000000000000000000000000000d1' }]);
		expect(reqs[1].body.returnWallets).toEqual([]);
		expect(reqs[2].body).toMatchObject({ subaccountId: sub });
		expect(reqs[2].body).not.toHaveProperty('returnWallets');
	});

	test('refuses two return wallets on one chain, and no wallets, before sending', async () => {
		const returnWallets = {
			wallet: [
				{ chain: 'base', address: '0x1' },
				{ chain: 'base', address: '0x2' },
			],
		};
		await expect(env.run(base({ returnWalletsMode: 'replace', returnWallets }))).rejects.toThrow('Return Wallets allows one wallet per chain');
		await expect(env.run(base({ wallets: {} }))).rejects.toThrow('Wallets: add at least one wallet');
		expect(await env.requests()).toEqual([]);
	});

	test('the upsert is repeated by the transport after a 500 (safe by nature)', async () => {
		await env.op('POST', '/faults', { method: 'POST', path: 'add-user-record', count: 1, commitThen500: true });
		const [item] = await env.run(base());
		expect((await env.requests()).map((r) => r.status)).toEqual([500, 200]);
		expect(item.json.label).toBe('dave');
	});
});
