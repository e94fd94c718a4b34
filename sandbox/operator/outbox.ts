/**
 * Operator API, the outbox: it stands in for Slack, a spreadsheet or any tool that needs an account.
 * The examples post what they would have sent here, so they publish and run against the sandbox as imported.
 */
import type { Router } from '../router';
import type { Services } from '../services';
import { ok, type OperatorState } from './shared';

export function registerOutbox(r: Router, svc: Services, state: OperatorState): void {
	const { core } = svc;
	r.add(
		'POST',
		'/sandbox/outbox/:channel',
		(ctx) => {
			state.outbox.push({ seq: ++state.outboxSeq, channel: ctx.params.channel, at: core.iso(), body: ctx.body });
			if (state.outbox.length > 1000) state.outbox.shift();
			return ok({ received: true, seq: state.outboxSeq }, 201);
		},
		false,
	);
	r.add(
		'GET',
		'/sandbox/outbox',
		(ctx) => {
			const channel = ctx.query.get('channel');
			return ok({ messages: state.outbox.filter((m) => !channel || m.channel === channel) });
		},
		false,
	);
}
