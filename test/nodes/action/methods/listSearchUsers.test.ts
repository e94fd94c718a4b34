/**
 * The users' From List (methods/listSearch.ts `searchUsers`, issue 48: a sender picked by its label), over
 * real HTTP. It reads GET /users (not in the reference; the field notes' third-party client reads
 * `GET /users?limit&offset` → `{users, total}`, as the sandbox models it). The list against the sandbox
 * (label and id shown, the id kept), its pages and its filter; a service without the list (404, 405) or with
 * another answer says to enter the ID; a wrong Base URL and a refused key keep their own messages.
 */
import { listSearch, type NodeSetup } from '../../../../harness/n8nContexts';
import { node, useEnv } from '../support';

const env = useEnv();

const setup = (baseUrl = env.sb.mainUrl): NodeSetup => ({
	parameters: { resource: 'paymentOrder', operation: 'create' },
	credentials: { apiKey: env.sb.apiKey, baseUrl, environment: 'sandbox' },
});
const search = async (filter?: string, token?: string, baseUrl?: string) =>
	(await listSearch(node, 'searchUsers', setup(baseUrl), filter, token)) as { results: Array<{ name: string; value: string }>; paginationToken?: string };
async function failure(promise: Promise<unknown>): Promise<Error> {
	try {
		await promise;
	} catch (error) {
		return error as Error;
	}
	throw new Error('expected the list to fail');
}
/** The sandbox answers GET /users with `status` and `body` once (a service without the list, or worded otherwise). */
const usersAnswer = (status: number, body: unknown) =>
	env.sb.services.traffic.faults.push({ method: 'GET', path: /^\/api\/v1\/users$/, pathSource: '^/api/v1/users$', count: 1, status, body });
const paths = async () => (await env.requests({ withSupportedAssets: true })).map((r) => `${r.method} ${r.path}`);

describe('From List: the users of the account', () => {
	test('each user shown by its label and id, the id kept; a subaccount user is not listed; the filter matches label or id in any case', async () => {
		const { results, paginationToken } = await search();
		expect(results).toEqual(
			expect.arrayContaining([
				{ name: `alice (${env.alice.id})`, value: env.alice.id },
				{ name: `bob (${env.bob.id})`, value: env.bob.id },
			]),
		);
		expect(results.map((r) => r.name)).not.toContainEqual(expect.stringMatching(/^carol/));
		expect(paginationToken).toBeUndefined();
		expect((await search('ALI')).results).toEqual([{ name: `alice (${env.alice.id})`, value: env.alice.id }]);
		expect((await search(env.bob.id.slice(0, 8).toUpperCase())).results.map((r) => r.value)).toEqual([env.bob.id]);
		expect(await paths()).toEqual(Array(3).fill('GET /api/v1/users'));
	});

	test('pages of 100 with the next offset as the token; a filter reads on until it finds, in one search', async () => {
		for (let n = 1; n <= 150; n++) await env.client.main.post('/add-user-record', { label: `payee-${String(n).padStart(3, '0')}`, wallets: [] });
		const total = (await env.client.main.get('/users')).body.total as number;
		await env.mark();
		const first = await search();
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBe('100');
		const second = await search(undefined, first.paginationToken);
		expect(second.results).toHaveLength(total - 100);
		expect(second.paginationToken).toBeUndefined();
		expect(new Set([...first.results, ...second.results].map((r) => r.value)).size).toBe(total);
		// payee-150 sits on the second page: one search reads both.
		await env.mark();
		expect((await search('Payee-150')).results.map((r) => r.name)).toEqual([expect.stringMatching(/^payee-150 \(/)]);
		expect((await env.requests()).map((r) => r.query)).toEqual([
			{ limit: '100', offset: '0' },
			{ limit: '100', offset: '100' },
		]);
	});
});

describe('a service without the list, or with another answer: the ID is entered instead', () => {
	test.each([404, 405])('GET /users answered %i: the list says there is none here and to choose By ID', async (status) => {
		usersAnswer(status, { message: `Cannot GET /api/v1/users` });
		const error = await failure(search());
		expect(error.message).toBe(
			`The Clearinghouse API at ${env.sb.mainUrl} offers no user list (GET /users answered ${status}; the API reference shows none), so the sender cannot be picked here. ` +
				"Choose By ID beside this field and paste the user's ID (the id that User → Create or Update returns, never the label).",
		);
		// n8n's list view splits a message at dashes: there are none.
		expect(error.message).not.toMatch(/[-–—]/);
		// The 404 was told apart from a wrong Base URL by a read the reference shows.
		expect(await paths()).toEqual(['GET /api/v1/users', 'GET /api/v1/supported-assets']);
	});

	test.each([
		['a list', [{ id: 'u1', label: 'x' }]],
		['users without an id', { users: [{ label: 'alice' }], total: 1 }],
		['another field', { data: [{ id: 'u1' }] }],
	])('an answer of another form (%s): the same way on, By ID', async (_what, body) => {
		usersAnswer(200, body);
		const error = await failure(search());
		expect(error.message).toBe(
			`The user list of the Clearinghouse API at ${env.sb.mainUrl} (GET /users) answered in a form this node does not read (users, each with an id), so the sender cannot be picked here. ` +
				"Choose By ID beside this field and paste the user's ID (the id that User → Create or Update returns, never the label).",
		);
	});

	test('a wrong Base URL keeps the message that says so (not "no user list")', async () => {
		const error = await failure(search(undefined, undefined, `${env.sb.mainUrl}/nothing-here`));
		expect(error.message).toMatch(/^Nothing at .*\/nothing-here answers as the Clearinghouse API \(404\), so this list cannot load\. Set the Base URL/);
	});

	test('a refused key keeps its own message', async () => {
		usersAnswer(401, { error: 'unauthorized' });
		expect((await failure(search())).message).toMatch(/did not accept the API Key .* \(401\), so this list cannot load/);
	});
});
