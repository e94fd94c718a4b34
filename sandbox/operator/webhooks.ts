/** Operator API, webhooks: run every pending delivery now, and every outgoing attempt with its answer. */
import type { Router } from '../router';
import type { Services } from '../services';
import { ok } from './shared';

export function registerWebhookOperator(r: Router, svc: Services): void {
	const { webhooks } = svc;
	r.add('POST', '/sandbox/webhooks/flush', async () => ok({ attempted: await webhooks.flush() }), false);
	r.add(
		'GET',
		'/sandbox/webhooks/attempts',
		(ctx) => {
			const id = ctx.query.get('endpointId');
			return ok({ attempts: webhooks.attemptsLog.filter((a) => !id || a.endpointId === id) });
		},
		false,
	);
}
