/** Supported Asset → Get Many, over real HTTP against the sandbox. */
import { json, useEnv } from '../support';

const env = useEnv();

describe('Get Many', () => {
	test('Get Many: one item per pair', async () => {
		const out = await env.run({ resource: 'supportedAsset', operation: 'getMany' });
		expect(json(out)).toEqual(env.state.supportedAssets);
		expect(out.every((o) => (o.pairedItem as any).item === 0)).toBe(true);
		const [req] = await env.requests({ withSupportedAssets: true });
		expect(req).toMatchObject({ method: 'GET', path: '/api/v1/supported-assets' });
	});
});
