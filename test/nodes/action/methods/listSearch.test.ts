/** The From List searches (methods/listSearch.ts), over real HTTP against the sandbox. */
import { listSearch } from '../../../../harness/n8nContexts';
import { node, useEnv, webhookEndpoint } from '../support';

const env = useEnv();

const creds = () => ({ apiKey: env.sb.apiKey, baseUrl: env.sb.mainUrl, rewardsUrl: env.sb.rewardsUrl });

describe('List search', () => {
	test('the endpoint list search filters by URL', async () => {
		const created = await webhookEndpoint(env);
		const setup = { parameters: { resource: 'webhookEndpoint', operation: 'get' }, credentials: creds() };
		const all = (await listSearch(node, 'searchWebhookEndpoints', setup)) as any;
		expect(all.results.map((r: any) => r.value)).toEqual([created.id]);
		const none = (await listSearch(node, 'searchWebhookEndpoints', setup, 'nothing-like-this')) as any;
		expect(none.results).toEqual([]);
	});
});
