import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { verifySignature } from '../shared/signature';
import { readSwitch, storedAt, type SwitchKind } from '../shared/switches';
import { confirmOrder } from './confirm';
import type { EventOptions, TriggerMemory } from './events';
import { decide, memoryFor, orderStateKey, recordEmitted } from './events';
import { isInFlight, trackRun } from './acknowledgement';
import { deliverySecret } from './endpointSecret';
import { rememberTestEvent } from './activation';
import { triggerKey, type EndpointState } from './state';

/**
 * A delivery: verified, confirmed with the API, deduplicated and filtered (events.ts, acknowledgement.ts),
 * then handed to n8n as a run or answered without one. Nothing may throw: n8n makes a throw from webhook()
 * an (error) execution.
 */
export async function onDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return rememberTestEvent(ctx, await handleDelivery(ctx));
	} catch {
		return respond(ctx, 500, { error: 'Internal error' });
	}
}

const SIGNATURE_HEADER = 'x-service-webhook-signature';
const DELIVERY_ID_HEADER = 'x-service-webhook-delivery-id';

/** Answers the request ourselves, so that n8n starts no execution for it. */
function respond(ctx: IWebhookFunctions, statusCode: number, body: IDataObject): IWebhookResponseData {
	ctx.getResponseObject().status(statusCode).json(body);
	return { noWebhookResponse: true };
}

function header(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value[0] : value;
}

/** Acknowledged with 2xx, so the service does not retry, but nothing runs. */
function ignored(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, ignored: reason } };
}

async function handleDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = ctx.getRequestObject();
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	const key = triggerKey(ctx);
	// A box that no longer opens is not repaired here (endpointSecret.ts): 503 keeps the delivery at the
	// service, and publishing again repairs the endpoint and replays it.
	const stored = await deliverySecret(ctx, state, key);
	if (stored.found === 'unreadable') {
		return respond(ctx, 503, { error: 'Webhook secret unavailable, retry later' });
	}
	const secret = stored.found === 'secret' ? stored.secret : undefined;
	// The signature covers the exact bytes n8n read (`rawBody`): without them, refuse (fail closed).
	const rawBody = (req as unknown as { rawBody?: unknown }).rawBody;
	// One generic answer for every failure: it says nothing about the secret or the expected value.
	if (!Buffer.isBuffer(rawBody) || !verifySignature({ header: req.headers[SIGNATURE_HEADER], rawBody, secrets: [secret] }).valid) {
		return respond(ctx, 401, { error: 'Unauthorized' });
	}

	// Parsed from the verified bytes, so what runs is exactly what was signed.
	let event: IDataObject;
	try {
		event = JSON.parse(rawBody.toString('utf8')) as IDataObject;
	} catch {
		return respond(ctx, 400, { error: 'Body is not JSON' });
	}
	if (!event || typeof event !== 'object' || Array.isArray(event)) return ignored('not_an_event');

	const base: IDataObject = {
		eventId: event.id,
		type: event.type,
		created: event.created,
		accountId: event.accountId,
		deliveryId: header(req.headers[DELIVERY_ID_HEADER]) ?? null,
	};

	// The static-data mirror is only read: n8n saves a delivery's whole copy of the static data, loaded
	// when it began, over what an activation wrote meanwhile (endpoint, secret, `lastRecovery`).
	const memory = memoryFor(key);
	memory.merge(state.memory);
	return await answerEvent(ctx, event, base, memory, key);
}

/** The trace of an event dropped for a 404 order: n8n's log at warn, not static data (see handleDelivery). */
function logDropped(ctx: IWebhookFunctions, eventId: string, orderId: unknown): void {
	ctx.logger.warn('Clearinghouse Trigger dropped an event: the API has no such payment order for this credential', {
		eventId,
		orderId: typeof orderId === 'string' ? orderId : undefined,
		workflowId: ctx.getWorkflow().id,
		node: ctx.getNode().name,
	});
}

/** An option that guards which events run, read fail-closed (switches.ts): an unclear value fails the delivery (500, delivered again). */
function eventSwitch(ctx: IWebhookFunctions, path: string, fallback: boolean, label: string, kind: SwitchKind): boolean {
	const stored = storedAt(ctx.getNode().parameters, path);
	try {
		return readSwitch(stored, stored === undefined ? fallback : ctx.getNodeParameter(path, fallback), fallback, label, kind);
	} catch (error) {
		const { field, rule } = error as { field: string; rule: string };
		throw new NodeOperationError(ctx.getNode(), `${field} ${rule.replace('Nothing was sent', 'No run was started for this delivery')}`);
	}
}

/** A repeat of an event whose run is in flight here: a 2xx would lose the event if that run fails, so the service tries again later. */
function inFlight(ctx: IWebhookFunctions): IWebhookResponseData {
	return respond(ctx, 409, { error: 'A run of this event is still in progress' });
}

/** What a verified event leads to: a run of the workflow, or an answer that starts none. */
async function answerEvent(
	ctx: IWebhookFunctions,
	event: IDataObject,
	base: IDataObject,
	memory: TriggerMemory,
	triggerKey: string,
): Promise<IWebhookResponseData> {
	const data = (event.data ?? {}) as IDataObject;
	if (event.type === 'webhook.ping') {
		const emitPing = eventSwitch(ctx, 'options.emitPing', false, 'Emit Test Pings', 'exemption');
		if (!emitPing) return ignored('ping');
		return { workflowData: [[{ json: { ...base, message: data.message ?? null } }]] };
	}
	if (event.type !== 'payment_order') return ignored('event_type');
	const eventOrder = data.payment_order as IDataObject | undefined;
	if (typeof event.id !== 'string' || !eventOrder || typeof eventOrder !== 'object') return ignored('not_a_payment_order_event');

	// With confirmation, every decision is made on the order as the API returns it (a forged version cannot mark real events stale).
	let order = eventOrder;
	const confirm = eventSwitch(ctx, 'options.confirmWithApi', true, 'Confirm Events With the API', 'guard');
	const dropDuplicates = eventSwitch(ctx, 'options.dropDuplicates', true, 'Drop Duplicate Deliveries', 'guard');
	if (confirm) {
		// A repeat of an emitted event id needs no API request (checked again after it, as always).
		if (dropDuplicates && memory.hasEvent(event.id)) return ignored('duplicate');
		// Nor a repeat whose run is in flight here (the service's retry after its 10 s timeout): the same 409.
		if (dropDuplicates && isInFlight(triggerKey, event.id)) return inFlight(ctx);
		const confirmation = await confirmOrder(ctx, eventOrder);
		if (confirmation.outcome === 'not_found') {
			logDropped(ctx, event.id, eventOrder.id);
			return ignored('order_not_found');
		}
		// Never emitted unconfirmed, never dropped: the service retries a non-2xx answer.
		if (confirmation.outcome !== 'confirmed') {
			return respond(ctx, 503, { error: 'Could not confirm the event with the API, retry later' });
		}
		order = confirmation.order;
	}

	const options: EventOptions = {
		statuses: ctx.getNodeParameter('statuses', []) as string[],
		passUnknownStatuses: eventSwitch(ctx, 'passUnknownStatuses', false, 'Pass Unknown Statuses', 'exemption'),
		includeDepositEvents: eventSwitch(ctx, 'options.includeDepositEvents', false, 'Include Deposit-Only Events', 'exemption'),
		dropStaleEvents: eventSwitch(ctx, 'options.dropStaleEvents', true, 'Drop Stale Events', 'guard'),
		dropDuplicates,
	};

	// No await between the decision and the record, so two concurrent deliveries of one event in
	// this process cannot both pass.
	if (options.dropDuplicates && isInFlight(triggerKey, event.id)) return inFlight(ctx);
	const decision = decide(memory, event.id, order, options, eventOrder);
	if (!decision.emit) return ignored(decision.reason);
	const stateKey = orderStateKey(order, decision.kind);
	const stateInFlight = `state:${stateKey}`;
	if (options.dropDuplicates && isInFlight(triggerKey, stateInFlight)) {
		// Another event of this order state has a run in flight, not yet recorded: decided again on the
		// service's retry, against what that run records; a 2xx now could lose this event if that run fails.
		return respond(ctx, 409, { error: 'A run of this order state is still in progress' });
	}
	const record = () => recordEmitted(memory, event.id as string, order);
	// Emitted only once n8n answered 2xx: When Received, after it created the execution (500 when it could
	// not); When Finished, after the run. Otherwise the service's retry runs it.
	trackRun(triggerKey, [event.id, stateInFlight], ctx.getResponseObject(), (succeeded) => succeeded && record());

	const json: IDataObject = { ...base, kind: decision.kind, orderStateKey: stateKey, paymentOrder: order };
	if (confirm) json.eventPaymentOrder = eventOrder;
	return { workflowData: [[{ json }]] };
}
