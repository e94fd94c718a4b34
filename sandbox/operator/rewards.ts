/** Operator API, rewards: archiving a rule, which the public API cannot reach. */
import type { Router } from '../router';
import type { Services } from '../services';
import { fail } from '../util';
import { ok } from './shared';

export function registerRewardOperator(r: Router, svc: Services): void {
	const { core } = svc;
	r.add(
		'POST',
		'/sandbox/rewards/rules/:id/archive',
		(ctx) => {
			const rule = core.rules.get(ctx.params.id);
			if (!rule) fail(404, 'rule_not_found');
			rule.status = 'archived';
			rule.updatedAt = core.iso();
			return ok({ id: rule.id, status: rule.status });
		},
		false,
	);
}
