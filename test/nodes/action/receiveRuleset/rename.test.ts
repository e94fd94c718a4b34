/** Receive Ruleset → Rename, over real HTTP against the sandbox. */
import { ruleset, useEnv } from '../support';

const env = useEnv();

const create = (extra = {}) => ruleset(env, { additionalFields: { name: '  Payroll in  ', mode: 'INSTANT', metadata: '{"team":"ops"}' }, ...extra });

describe('Rename', () => {
	test('Rename: PATCH with the trimmed name; bad names refused before sending', async () => {
		const [created] = await env.run(create());
		await env.mark();
		const [renamed] = await env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: ' Payroll out ' });
		const [req] = await env.requests();
		expect(req).toMatchObject({ method: 'PATCH', path: `/api/v1/rulesets/${created.json.id}`, body: { name: 'Payroll out' } });
		expect(renamed.json.name).toBe('Payroll out');
		await env.mark();
		await expect(env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: 'x'.repeat(121) })).rejects.toThrow(
			/Name must be 1-120/,
		);
		await expect(env.run({ resource: 'receiveRuleset', operation: 'rename', rulesetId: created.json.id as string, name: '   ' })).rejects.toThrow(
			'Name is required',
		);
		expect(await env.requests()).toEqual([]);
	});
});
