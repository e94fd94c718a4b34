/** Webhook endpoints and the deliveries log. Always the caller's own account (scoping has no effect). */
import type { Ctx, Router } from '../router';
import { parse, queryObject, requestSchemas } from '../schemas';
import type { Services } from '../services';
import type { Endpoint } from '../state';
import { fail, uuid } from '../util';
import { checkWebhookHost, checkWebhookUrl, newSecret, publicDelivery, publicEndpoint, systemLookup } from '../webhooks';

export function registerWebhookRoutes(r: Router, svc: Services): void {
	const { core, webhooks } = svc;
	const allow = core.opts.allowLoopbackWebhooks;
	const lookup = core.opts.resolveWebhookHosts ? (core.opts.webhookLookup ?? systemLookup) : null;

	const endpoint = (ctx: Ctx): Endpoint => {
		const e = core.endpoints.get(ctx.params.id);
		if (!e || e.deletedAt || e.accountId !== ctx.auth.account.id) fail(404, 'webhook_endpoint_not_found', `Webhook endpoint ${ctx.params.id} not found`);
		return e;
	};
	/** Static rules always; with DNS checks on, the name must resolve to public addresses only. */
	const checkUrl = async (url: string) => {
		const why = checkWebhookUrl(url, allow) ?? (lookup ? await checkWebhookHost(url, lookup, allow) : null);
		if (why) fail(400, 'invalid_webhook_url', why, { path: 'url' });
	};

	r.add('POST', '/api/v1/webhooks/endpoints', async (ctx) => {
		const b = parse(requestSchemas.endpointCreate, ctx.body);
		await checkUrl(b.url);
		const now = core.iso();
		const e: Endpoint = {
			id: uuid(),
			accountId: ctx.auth.account.id,
			url: b.url,
			description: b.description ?? null,
			status: 'ENABLED',
			eventTypes: b.eventTypes ?? ['payment_order'],
			consecutiveFailures: 0,
			createdAt: now,
			updatedAt: now,
			disabledAt: null,
			deletedAt: null,
			secret: newSecret(),
			secretNext: null,
		};
		core.data.endpoints.push(e);
		core.endpoints.set(e.id, e);
		return { status: 201, body: { ...publicEndpoint(e), secret: e.secret } };
	});

	r.add('GET', '/api/v1/webhooks/endpoints', (ctx) => ({
		status: 200,
		body: { endpoints: core.data.endpoints.filter((e) => e.accountId === ctx.auth.account.id && !e.deletedAt).map(publicEndpoint) },
	}));

	r.add('GET', '/api/v1/webhooks/endpoints/:id', (ctx) => ({ status: 200, body: publicEndpoint(endpoint(ctx)) }));

	r.add('PATCH', '/api/v1/webhooks/endpoints/:id', async (ctx) => {
		const b = parse(requestSchemas.endpointPatch, ctx.body);
		const e = endpoint(ctx);
		if (b.url !== undefined) {
			await checkUrl(b.url);
			e.url = b.url;
		}
		if (b.description !== undefined) e.description = b.description;
		if (b.status === 'ENABLED' && e.status !== 'ENABLED') {
			e.status = 'ENABLED';
			e.disabledAt = null;
			e.consecutiveFailures = 0;
		} else if (b.status === 'DISABLED' && e.status !== 'DISABLED') {
			e.status = 'DISABLED';
			e.disabledAt = core.iso();
		}
		e.updatedAt = core.iso();
		return { status: 200, body: publicEndpoint(e) };
	});

	r.add('DELETE', '/api/v1/webhooks/endpoints/:id', (ctx) => {
		const e = endpoint(ctx);
		e.deletedAt = core.iso();
		e.updatedAt = e.deletedAt;
		return { status: 200, body: publicEndpoint(e) };
	});

	r.add('POST', '/api/v1/webhooks/endpoints/:id/rotate-secret', (ctx) => {
		const q = parse(requestSchemas.rotateQuery, queryObject(ctx.query));
		const e = endpoint(ctx);
		const next = newSecret();
		if (q.immediate) {
			e.secret = next; // only the new secret signs from now on
			e.secretNext = null;
		} else {
			e.secretNext = next; // both sign until promote
		}
		e.updatedAt = core.iso();
		return { status: 200, body: { id: e.id, secretNext: next } };
	});

	r.add('POST', '/api/v1/webhooks/endpoints/:id/rotate-secret/promote', (ctx) => {
		const e = endpoint(ctx);
		if (!e.secretNext) fail(409, 'no_rotation_in_progress', 'There is no pending secret to promote');
		e.secret = e.secretNext;
		e.secretNext = null;
		e.updatedAt = core.iso();
		return { status: 200, body: publicEndpoint(e) };
	});

	r.add('POST', '/api/v1/webhooks/endpoints/:id/test', async (ctx) => ({ status: 200, body: await webhooks.ping(endpoint(ctx)) }));

	r.add('GET', '/api/v1/webhooks/deliveries', (ctx) => {
		const q = parse(requestSchemas.deliveriesQuery, queryObject(ctx.query));
		const limit = q.limit ?? 100;
		const offset = q.offset ?? 0;
		const all = core.data.deliveries;
		const page: Record<string, unknown>[] = [];
		let total = 0;
		for (let i = all.length - 1; i >= 0; i--) {
			const d = all[i];
			if (d.accountId !== ctx.auth.account.id) continue;
			if ((q.endpointId && d.endpointId !== q.endpointId) || (q.status && d.status !== q.status) || (q.type && d.publicEventType !== q.type)) continue;
			if (total >= offset && page.length < limit) page.push(publicDelivery(d));
			total++;
		}
		return { status: 200, body: { deliveries: page, total, limit, offset, hasMore: offset + page.length < total } };
	});

	const delivery = (ctx: Ctx) => {
		const d = core.deliveries.get(ctx.params.id);
		if (!d || d.accountId !== ctx.auth.account.id) fail(404, 'webhook_delivery_not_found', `Webhook delivery ${ctx.params.id} not found`);
		return d;
	};
	const fullDelivery = (id: string) => {
		const d = core.deliveries.get(id)!;
		const e = core.endpoints.get(d.endpointId);
		return {
			...publicDelivery(d),
			request: {
				url: e?.url ?? null,
				headers: {
					'Content-Type': 'application/json',
					'X-Service-Webhook-Id': d.envelopeId,
					'X-Service-Webhook-Delivery-Id': d.id,
					'X-Service-Event': d.publicEventType,
				},
				body: JSON.parse(d.rawBody) as unknown,
			},
			attempts: d.attempts,
		};
	};

	r.add('GET', '/api/v1/webhooks/deliveries/:id', (ctx) => ({ status: 200, body: fullDelivery(delivery(ctx).id) }));

	r.add('POST', '/api/v1/webhooks/deliveries/:id/replay', (ctx) => {
		const d = delivery(ctx);
		const e = core.endpoints.get(d.endpointId);
		if (!e) fail(404, 'webhook_endpoint_not_found', 'The endpoint of this delivery no longer exists');
		const copy = webhooks.createDelivery(e, d.eventId, d.envelopeId, d.publicEventType, d.rawBody, d.id);
		return { status: 202, body: fullDelivery(copy.id) };
	});
}
