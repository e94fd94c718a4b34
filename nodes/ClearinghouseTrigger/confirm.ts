import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { RetryPolicy } from '../shared/transport';
import { apiRequest } from '../shared/transport';

/**
 * One try, bounded: the service gives each delivery attempt 10 s and retries a failed delivery
 * itself, so a slow or failing API is answered non-2xx rather than retried here.
 */
const CONFIRM_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 1,
	baseDelayMs: 0,
	maxDelayMs: 0,
	maxRetryAfterMs: 0,
};
const CONFIRM_TIMEOUT_MS = 8_000;

export type Confirmation =
	/** The order as the service returns it now. */
	| { outcome: 'confirmed'; order: IDataObject }
	/** No such order for this account (404): the event cannot be genuine for this credential. */
	| { outcome: 'not_found' }
	/** The payload claims a version the service does not show (yet): never emitted, retried later. */
	| { outcome: 'ahead' }
	/** The API could not answer (5xx, 429, timeout, network, 401/403 of the key): retried later. */
	| { outcome: 'unavailable' };

/** `GET /payment-orders/{id}` for the order an event names, with the credential the delivery opened its secret with. Never throws. */
export async function confirmOrder(ctx: IWebhookFunctions, eventOrder: IDataObject): Promise<Confirmation> {
	const id = eventOrder.id;
	if (typeof id !== 'string' || id === '') return { outcome: 'not_found' };
	let order: IDataObject;
	try {
		order = await apiRequest(ctx, { method: 'GET', path: `/payment-orders/${encodeURIComponent(id)}`, timeoutMs: CONFIRM_TIMEOUT_MS }, CONFIRM_RETRY_POLICY);
	} catch (error) {
		const status = (error as { httpCode?: string })?.httpCode;
		return status === '404' ? { outcome: 'not_found' } : { outcome: 'unavailable' };
	}
	if (!order || typeof order !== 'object' || order.id !== id || typeof order.version !== 'number') {
		return { outcome: 'unavailable' };
	}
	if (typeof eventOrder.version === 'number' && eventOrder.version > order.version) return { outcome: 'ahead' };
	return { outcome: 'confirmed', order };
}
