import type { IDataObject, IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { MemorySnapshot } from './events';

/** What every moment of the trigger (publish, activation, delivery) shares: its static data and its key. */

/** What the trigger keeps in `getWorkflowStaticData('node')`: its endpoint, and the mirror of its memory. */
export interface EndpointState {
	endpointId?: string;
	/** The endpoint secret, sealed (AES-256-GCM) under a key derived from the credential's API key. */
	secretBox?: string;
	/** Only in state written by versions before the box: read once, then replaced by `secretBox`. */
	secret?: string;
	url?: string;
	/** The static-data mirror of the trigger's in-process memory of emitted events (events.ts). */
	memory?: MemorySnapshot;
	/** What the last catch-up on activation did (see `catchUp`). */
	lastRecovery?: IDataObject;
	// `dropped` (a counter of events dropped as order_not_found) was written by deliveries before issue 46;
	// a delivery writes nothing now (delivery.ts, logDropped), and a leftover is neither read nor removed.
}

/** One trigger node in this process, in one n8n mode ('trigger' for production webhooks, 'manual' for test ones). */
export function triggerKey(ctx: IHookFunctions | ITriggerFunctions | IWebhookFunctions, mode: string = ctx.getMode()): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${mode}`;
}
