/** Reward Rule → Get Rule Blocks, over real HTTP against the rewards API on its own base URL. */
import { useEnv } from '../support';

const env = useEnv();

describe('Get Rule Blocks', () => {
	test('Get Rule Blocks: the catalog as one item', async () => {
		const out = await env.run({ resource: 'rewardRule', operation: 'getRuleBlocks' });
		expect(out).toHaveLength(1);
		expect((out[0].json.measures as any[]).map((m) => m.type)).toContain('daily_balance');
		const [req] = await env.requests();
		expect(req).toMatchObject({ api: 'rewards', path: '/api/v1/rewards/rule-blocks' });
	});
});
