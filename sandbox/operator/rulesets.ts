/** Operator API, rulesets: deactivation, which the public API cannot reach (a transfer to a ruleset address is in chain.ts). */
import type { Router } from '../router';
import { publicRuleset } from '../routes/rulesets';
import type { Services } from '../services';
import { fail } from '../util';
import { ok } from './shared';

export function registerRulesetOperator(r: Router, svc: Services): void {
	const { core } = svc;
	r.add(
		'POST',
		'/sandbox/rulesets/:id/deactivate',
		(ctx) => {
			const rs = core.rulesets.get(ctx.params.id);
			if (!rs) fail(404, 'ruleset_not_found');
			rs.status = 'DEACTIVATED';
			rs.updatedAt = core.iso();
			return ok(publicRuleset(rs));
		},
		false,
	);
}
