/**
 * Operator API under /sandbox (loopback only, no key): what the real service's staff and the chain
 * do. One module per topic, as the public routes in ../routes/.
 */
import type { Router } from '../router';
import type { Services } from '../services';
import { registerAccountOperator } from './accounts';
import { registerChainOperator } from './chain';
import { registerOrderOperator } from './orders';
import { registerOutbox } from './outbox';
import { registerOverview } from './overview';
import { registerRewardOperator } from './rewards';
import { registerRulesetOperator } from './rulesets';
import type { OperatorState } from './shared';
import { registerTrafficOperator } from './traffic';
import { registerWebhookOperator } from './webhooks';

export function registerOperator(r: Router, svc: Services): void {
	const state: OperatorState = { outbox: [], outboxSeq: 0, lastNetting: null };
	registerAccountOperator(r, svc, state);
	registerChainOperator(r, svc);
	registerOrderOperator(r, svc, state);
	registerTrafficOperator(r, svc);
	registerWebhookOperator(r, svc);
	registerRulesetOperator(r, svc);
	registerRewardOperator(r, svc);
	registerOutbox(r, svc, state);
	registerOverview(r, svc, state);
}
