import type { IDataObject, IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { SecretState } from './endpointSecret';
import type { MemorySnapshot } from './events';

/** What the trigger keeps in `getWorkflowStaticData('node')`, shared by publish, activation and delivery. */
export interface EndpointState extends SecretState {
	endpointId?: string;
	url?: string;
	/** The static-data mirror of the trigger's in-process memory of emitted events (events.ts). */
	memory?: MemorySnapshot;
	/** What the last catch-up on activation did (see `catchUp`). */
	lastRecovery?: IDataObject;
}

/** One trigger node in this process, in one n8n mode ('trigger' for production webhooks, 'manual' for test ones). */
export function triggerKey(ctx: IHookFunctions | ITriggerFunctions | IWebhookFunctions, mode: string = ctx.getMode()): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${mode}`;
}
