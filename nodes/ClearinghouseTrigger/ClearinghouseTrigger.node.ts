import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { paymentOrderStatusOptions } from '../shared/paymentOrderStatus';
import { verifySignature } from '../shared/signature';
import type { EventOptions } from './events';
import {
	decide,
	memoryFor,
	recordEmitted,
	STATIC_MAX_EVENTS,
	STATIC_MAX_ORDERS,
} from './events';
import type { Acknowledge } from './acknowledgement';
import { isInFlight, RESPONSE_DATA_EXPRESSION, RESPONSE_MODE_EXPRESSION, trackRun } from './acknowledgement';
import type { EndpointState } from './lifecycle';
import { checkExists, create, deleteWebhook } from './lifecycle';

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
		version: [1],
		subtitle: 'payment_order events',
		description: 'Starts the workflow on signed payment order events from the clearinghouse',
		defaults: { name: 'Clearinghouse Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'clearinghouseApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: RESPONSE_MODE_EXPRESSION,
				responseData: RESPONSE_DATA_EXPRESSION,
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Registers its own webhook endpoint when the workflow is published and deletes it when unpublished. The service only delivers to https URLs on public hosts: n8n\'s WEBHOOK_URL must be such an address. Every delivery is signature-checked; unsigned, forged or expired ones are answered 401 and run nothing.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Order Statuses',
				name: 'statuses',
				type: 'multiOptions',
				options: paymentOrderStatusOptions(),
				default: [],
				description:
					'Emit only events whose order has one of these statuses. Leave empty for every known status.',
			},
			{
				displayName: 'Pass Unknown Statuses',
				name: 'passUnknownStatuses',
				type: 'boolean',
				default: true,
				description:
					'Whether to emit events whose order status is not one the service documented when this node was written (the service adds statuses over time)',
			},
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
						description:
							'Whether to start the workflow for the service\'s webhook.ping test event (it is always answered 2xx)',
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

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// Nothing here may throw: n8n turns a throw from webhook() into an (error) execution.
		try {
			return handleDelivery(this);
		} catch {
			return respond(this, 500, { error: 'Internal error' });
		}
	}
}

function handleDelivery(ctx: IWebhookFunctions): IWebhookResponseData {
	const req = ctx.getRequestObject();
	const state = ctx.getWorkflowStaticData('node') as EndpointState;
	// n8n keeps the exact bytes it read (decompressed) as `rawBody`; the signature covers them.
	// Without the raw bytes nothing can be verified: refuse (fail closed).
	const rawBody = (req as unknown as { rawBody?: unknown }).rawBody;
	const check = Buffer.isBuffer(rawBody)
		? verifySignature({ header: req.headers[SIGNATURE_HEADER], rawBody, secrets: [state.secret] })
		: undefined;
	// One generic answer for every failure: it says nothing about the secret or the expected value.
	if (!check?.valid || !Buffer.isBuffer(rawBody)) return respond(ctx, 401, { error: 'Unauthorized' });

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
	const data = (event.data ?? {}) as IDataObject;

	// Process memory first (it sees every delivery of this process), topped up from the static-data
	// mirror (what this or another process saved). The mirror is rewritten on every verified
	// delivery, because n8n saves it only from deliveries that start no run (see the README).
	const triggerKey = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${ctx.getMode()}`;
	const memory = memoryFor(triggerKey);
	memory.merge(state.memory);
	const mirror = () => {
		state.memory = memory.snapshot(STATIC_MAX_EVENTS, STATIC_MAX_ORDERS) as unknown as IDataObject;
	};
	mirror();

	if (event.type === 'webhook.ping') {
		const emitPing = ctx.getNodeParameter('options.emitPing', false) as boolean;
		if (!emitPing) return ignored('ping');
		return { workflowData: [[{ json: { ...base, message: data.message ?? null } }]] };
	}
	if (event.type !== 'payment_order') return ignored('event_type');
	const order = data.payment_order as IDataObject | undefined;
	if (typeof event.id !== 'string' || !order || typeof order !== 'object') return ignored('not_a_payment_order_event');

	const options: EventOptions = {
		statuses: ctx.getNodeParameter('statuses', []) as string[],
		passUnknownStatuses: ctx.getNodeParameter('passUnknownStatuses', true) as boolean,
		includeDepositEvents: ctx.getNodeParameter('options.includeDepositEvents', false) as boolean,
		dropStaleEvents: ctx.getNodeParameter('options.dropStaleEvents', true) as boolean,
		dropDuplicates: ctx.getNodeParameter('options.dropDuplicates', true) as boolean,
	};

	// No await between the decision and the record, so two concurrent deliveries of one event in
	// this process cannot both pass.
	const acknowledge = ctx.getNodeParameter('options.acknowledge', 'whenReceived') as Acknowledge;
	if (acknowledge === 'whenFinished' && options.dropDuplicates && isInFlight(triggerKey, event.id)) {
		// A 2xx now would lose the event if the run in flight fails: the service tries again later.
		return respond(ctx, 409, { error: 'A run of this event is still in progress' });
	}
	const decision = decide(memory, event.id, order, options);
	if (!decision.emit) return ignored(decision.reason);
	const record = () => {
		recordEmitted(memory, event.id as string, order);
		mirror();
	};
	// When acknowledging at the end, only a successful run counts as emitted: a failed one is retried.
	if (acknowledge === 'whenFinished') trackRun(triggerKey, event.id, ctx.getResponseObject(), (succeeded) => succeeded && record());
	else record();

	return {
		workflowData: [[{ json: { ...base, kind: decision.kind, paymentOrder: order } }]],
	};
}
