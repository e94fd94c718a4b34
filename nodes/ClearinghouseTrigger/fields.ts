import type { INodeProperties } from 'n8n-workflow';

import { eventOptions, passUnknownStatusesField } from './eventOptions';

/** The trigger's panel: its fields, in the order the panel shows them. */
export const properties: INodeProperties[] = [
	{
		displayName:
			'Publish the workflow and this trigger starts it for each payment order event chosen in Events below: it registers itself with the clearinghouse, there is nothing to copy or paste. To try it with the sandbox, publish, then move an order along in the sandbox console (fund it, close the netting window) and watch the executions appear. Whenever n8n activates it (publish, n8n start) it re-enables an endpoint the service disabled and has the service send again the events it missed while n8n was down. An endpoint disabled while n8n stays up is recovered by the Clearinghouse node\'s Webhook Endpoint → Recover on a schedule, as in the "Keep my trigger healthy" example.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		// The values are the statuses the order has after the event.
		displayName: 'Events',
		name: 'statuses',
		type: 'multiOptions',
		options: eventOptions(),
		default: [],
		description: 'What must have happened to an order for the workflow to start. Leave empty for every event.',
	},
	passUnknownStatusesField,
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
];
