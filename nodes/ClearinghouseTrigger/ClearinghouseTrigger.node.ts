import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { paymentOrderStatusOptions } from '../shared/paymentOrderStatus';
import { verifySignature } from '../shared/signature';
import { readSwitch, storedAt, type SwitchKind } from '../shared/switches';
import { confirmOrder } from './confirm';
import type { EventOptions, TriggerMemory } from './events';
import { decide, memoryFor, orderStateKey, recordEmitted } from './events';
import { ACKNOWLEDGE_WEBHOOK_FIELDS, isInFlight, trackRun } from './acknowledgement';
import { deliverySecret } from './endpointSecret';
import { EVENTS_SUBTITLE, eventOptions, passUnknownStatusesDefault, passUnknownStatusesFields } from './eventOptions';
import { triggerKey, type EndpointState } from './state';
import { checkExists, create, deleteWebhook } from './publish';
import { onActivation, rememberTestEvent } from './activation';

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

export class ClearinghouseTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Clearinghouse Trigger',
		name: 'clearinghouseTrigger',
		icon: { light: 'file:clearinghouse.svg', dark: 'file:clearinghouse.dark.svg' },
		group: ['trigger'],
		// v2: the Events filter (one nodes-panel entry per event), a notice for users, and no engine
		// call per delivery (n8n evaluates `options.binaryData` for every v1 delivery, by version).
		// v3: Pass Unknown Statuses defaults to off (n8n leaves defaults out of saved workflows, so a
		// new default needs a new version: v1 and v2 nodes keep it on).
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle: EVENTS_SUBTITLE,
		// n8n 2.40.7's nodes panel merges a trigger with the action node of the same name and shows the
		// trigger's description for both (workflows.store, generateMergedNodesAndActions): it says both.
		description: 'Pay, refund and look up stablecoin payment orders, and start workflows on their signed events',
		defaults: { name: 'Clearinghouse Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'clearinghouseApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				...ACKNOWLEDGE_WEBHOOK_FIELDS,
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					"Registers its own webhook endpoint when the workflow is published and deletes it when unpublished. The service only delivers to https URLs on public hosts: n8n's WEBHOOK_URL must be such an address. Every delivery is signature-checked; unsigned, forged or expired ones are answered 401 and run nothing.",
				name: 'notice',
				type: 'notice',
				default: '',
				displayOptions: { show: { '@version': [1] } },
			},
			{
				displayName: 'Order Statuses',
				name: 'statuses',
				type: 'multiOptions',
				options: paymentOrderStatusOptions(),
				default: [],
				description: 'Emit only events whose order has one of these statuses. Leave empty for every known status.',
				displayOptions: { show: { '@version': [1] } },
			},
			{
				displayName:
					'Publish the workflow and this trigger starts it for each payment order event chosen in Events below: it registers itself with the clearinghouse, there is nothing to copy or paste. To try it with the sandbox, publish, then move an order along in the sandbox console (fund it, close the netting window) and watch the executions appear. Whenever n8n activates it (publish, n8n start) it re-enables an endpoint the service disabled and has the service send again the events it missed while n8n was down. An endpoint disabled while n8n stays up is recovered by the Clearinghouse node\'s Webhook Endpoint → Recover on a schedule, as in the "Keep my trigger healthy" example.',
				name: 'notice',
				type: 'notice',
				default: '',
				displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
			},
			{
				// Named `statuses` like v1's filter: the values are the statuses the order has after the event.
				displayName: 'Events',
				name: 'statuses',
				type: 'multiOptions',
				options: eventOptions(),
				default: [],
				description: 'What must have happened to an order for the workflow to start. Leave empty for every event.',
				displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
			},
			...passUnknownStatusesFields,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Acknowledge',
						name: 'acknowledge',
						type: 'options',
						default: 'whenReceived',
						options: [
							{
								name: 'When Received',
								value: 'whenReceived',
								description: 'Answer 2xx as soon as the delivery is verified; a run that then fails is not retried by the service',
							},
							{
								name: 'When the Workflow Has Finished',
								value: 'whenFinished',
								description:
									'Answer when the run has ended: non-2xx when it failed, so the service retries the event. For short workflows (the service waits 10 s per attempt); see the README.',
							},
						],
						description: 'When the service is told that the event was received',
					},
					{
						displayName: 'Catch Up Window (Days)',
						name: 'catchUpDays',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 30 },
						default: 7,
						description:
							'When n8n activates the trigger (publish, n8n start), events of the last this many days that never reached this trigger (n8n was down, the endpoint was disabled) are sent again by the service, signed, and checked like any delivery. 0 turns this off.',
					},
					{
						displayName: 'Confirm Events With the API',
						name: 'confirmWithApi',
						type: 'boolean',
						default: true,
						description:
							"Whether to fetch each event's order from the API before emitting, and emit the order as the service returns it now (the event's own copy is in eventPaymentOrder). Events for an order this account does not have are dropped; stale and duplicate checks use the fetched version. Guards against forged events if the webhook secret leaks; costs one API request per delivery.",
					},
					{
						displayName: 'Drop Duplicate Deliveries',
						name: 'dropDuplicates',
						type: 'boolean',
						default: true,
						description:
							'Whether to drop a delivery whose event ID this trigger already emitted (the service delivers at least once). Kept in process memory: see the README for where this holds (in queue mode, route deliveries by event ID) and key effects that must happen once on the event ID.',
					},
					{
						displayName: 'Drop Stale Events',
						name: 'dropStaleEvents',
						type: 'boolean',
						default: true,
						description:
							'Whether to drop an event whose order version is not above the highest this trigger already emitted for that order (per deposit version for deposit events); deliveries are unordered',
					},
					{
						displayName: 'Emit Test Pings',
						name: 'emitPing',
						type: 'boolean',
						default: false,
						description: "Whether to start the workflow for the service's webhook.ping test event (it is always answered 2xx)",
					},
					{
						displayName: 'Include Deposit-Only Events',
						name: 'includeDepositEvents',
						type: 'boolean',
						default: false,
						description:
							'Whether to emit events where the order status did not change but one of its deposits did (for example a partial deposit while awaiting funds)',
					},
				],
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteWebhook.call(this);
			},
		},
	};

	/**
	 * Called by n8n on every activation (publish, n8n start, leadership change) and for a manual run
	 * started from a test event; it starts nothing itself. Why it exists: activation.ts.
	 */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await onActivation.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// Nothing here may throw: n8n turns a throw from webhook() into an (error) execution.
		try {
			return rememberTestEvent(this, await handleDelivery(this));
		} catch {
			return respond(this, 500, { error: 'Internal error' });
		}
	}
}

async function handleDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const req = ctx.getRequestObject();
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	const key = triggerKey(ctx);
	// The secret is kept sealed under the credential's API key (see endpointSecret.ts). A box that no
	// longer opens (the key was changed) is not repaired from here: nothing unverified may make the
	// trigger write to the service. Answered 503 so the service keeps the delivery; publishing the
	// workflow again repairs the endpoint and its catch-up replays these deliveries.
	const stored = await deliverySecret.call(ctx, state, key);
	if (stored.found === 'unreadable') {
		return respond(ctx, 503, { error: 'Webhook secret unavailable, retry later' });
	}
	const secret = stored.found === 'secret' ? stored.secret : undefined;
	// n8n keeps the exact bytes it read (decompressed) as `rawBody`; the signature covers them.
	// Without the raw bytes nothing can be verified: refuse (fail closed).
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

	// Process memory (it sees every delivery of this process), topped up from a static-data mirror
	// that earlier versions wrote. Deliveries no longer write it: n8n saves a delivery's whole
	// copy of the static data, loaded when the delivery began, so a write here overwrote what an
	// activation wrote meanwhile (its endpoint, secret and `lastRecovery`).
	const memory = memoryFor(key);
	memory.merge(state.memory);
	return await answerEvent(ctx, event, base, memory, key);
}

/** Keeps a trace of an event dropped because the API has no such order for this credential (404). */
const MAX_DROPPED_IDS = 20;
function noteDropped(ctx: IWebhookFunctions, eventId: string, orderId: unknown): void {
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	const dropped = state.dropped ?? { count: 0, lastEventIds: [], lastAt: '' };
	dropped.count = (Number(dropped.count) || 0) + 1;
	dropped.lastEventIds = [...(Array.isArray(dropped.lastEventIds) ? dropped.lastEventIds : []), eventId].slice(-MAX_DROPPED_IDS);
	dropped.lastAt = new Date().toISOString();
	// Saved by n8n: this delivery starts no run.
	state.dropped = dropped;
	ctx.logger.warn('Clearinghouse Trigger dropped an event: the API has no such payment order for this credential', {
		eventId,
		orderId: typeof orderId === 'string' ? orderId : undefined,
		workflowId: ctx.getWorkflow().id,
		node: ctx.getNode().name,
	});
}

/**
 * An option that guards which events run the workflow, read fail-closed (shared/switches.ts): a value
 * that is neither a clear on nor a clear off fails the delivery (n8n answers 500, nothing runs, the
 * service delivers it again), naming the option and the value.
 */
function eventSwitch(ctx: IWebhookFunctions, path: string, fallback: boolean, label: string, kind: SwitchKind): boolean {
	const stored = storedAt(ctx.getNode().parameters, path);
	try {
		return readSwitch(stored, stored === undefined ? fallback : ctx.getNodeParameter(path, fallback), fallback, label, kind);
	} catch (error) {
		const { field, rule } = error as { field: string; rule: string };
		throw new NodeOperationError(ctx.getNode(), `${field} ${rule.replace('Nothing was sent', 'No run was started for this delivery')}`);
	}
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

	// With confirmation, every decision below is made on the order the API returns now, never on
	// what only the payload claims (a forged version cannot mark the real events stale).
	let order = eventOrder;
	const confirm = eventSwitch(ctx, 'options.confirmWithApi', true, 'Confirm Events With the API', 'guard');
	const dropDuplicates = eventSwitch(ctx, 'options.dropDuplicates', true, 'Drop Duplicate Deliveries', 'guard');
	if (confirm) {
		// A repeat of an emitted event id needs no API request (checked again after it, as always).
		if (dropDuplicates && memory.hasEvent(event.id)) return ignored('duplicate');
		const confirmation = await confirmOrder(ctx, eventOrder);
		if (confirmation.outcome === 'not_found') {
			noteDropped(ctx, event.id, eventOrder.id);
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
		passUnknownStatuses: eventSwitch(ctx, 'passUnknownStatuses', passUnknownStatusesDefault(ctx.getNode().typeVersion), 'Pass Unknown Statuses', 'exemption'),
		includeDepositEvents: eventSwitch(ctx, 'options.includeDepositEvents', false, 'Include Deposit-Only Events', 'exemption'),
		dropStaleEvents: eventSwitch(ctx, 'options.dropStaleEvents', true, 'Drop Stale Events', 'guard'),
		dropDuplicates,
	};

	// No await between the decision and the record, so two concurrent deliveries of one event in
	// this process cannot both pass.
	if (options.dropDuplicates && isInFlight(triggerKey, event.id)) {
		// A 2xx now would lose the event if the run in flight fails (or, When Received, if n8n
		// fails to start it): the service tries again later.
		return respond(ctx, 409, { error: 'A run of this event is still in progress' });
	}
	const decision = decide(memory, event.id, order, options, eventOrder);
	if (!decision.emit) return ignored(decision.reason);
	const stateKey = orderStateKey(order, decision.kind);
	const stateInFlight = `state:${stateKey}`;
	if (options.dropDuplicates && isInFlight(triggerKey, stateInFlight)) {
		// Another event of this order state has a run in flight here (being created, or running When
		// Finished), not yet recorded: this one was decided without it (the filters would drop it as
		// stale or deposit-only once it is). Decided again on the service's retry, against what that
		// run recorded; a 2xx now could lose this event if that run fails.
		return respond(ctx, 409, { error: 'A run of this order state is still in progress' });
	}
	const record = () => recordEmitted(memory, event.id as string, order);
	// The event counts as emitted only once n8n has answered the delivery 2xx. When Received, n8n
	// 2.40 answers after it created the execution (WorkflowRunner.run), and 500 when it could not
	// (database, queue): then the event is not marked seen and the service's retry runs it. When
	// the Workflow Has Finished, the answer comes after the run: a failed run is retried.
	trackRun(triggerKey, [event.id, stateInFlight], ctx.getResponseObject(), (succeeded) => succeeded && record());

	const json: IDataObject = { ...base, kind: decision.kind, orderStateKey: stateKey, paymentOrder: order };
	if (confirm) json.eventPaymentOrder = eventOrder;
	return { workflowData: [[{ json }]] };
}
