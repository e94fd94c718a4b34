/**
 * POST /payment-orders/{id}/cancel. Not keyed and not repeated by the transport: a repeat after a
 * lost answer would meet an order that is no longer cancelable and fail with 409 for no reason.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequestWithStatus } from '../../../shared/transport';
import { optionsCollection, paymentOrderLocator, subaccountOrderOption } from '../fields';
import { bodyRecord, locatorValue, subaccountQuery } from '../parameters';
import { dryRunOption } from '../dryRun';

const properties: INodeProperties[] = [
	paymentOrderLocator,
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		placeholder: 'e.g. Customer withdrew the request',
		description: 'Why the order is canceled; stored on the order as its cancel reason',
	},
	optionsCollection([dryRunOption, subaccountOrderOption]),
];

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['cancel'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'paymentOrderId', itemIndex, 'Payment Order');
	const reason = String(ctx.getNodeParameter('reason', itemIndex, '') ?? '');
	const subaccount = subaccountQuery(ctx.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const { statusCode, body } = await apiRequestWithStatus(ctx, {
		method: 'POST',
		path: `/payment-orders/${encodeURIComponent(id)}/cancel`,
		body: { reason, ...subaccount },
		itemIndex,
	});
	const answer = bodyRecord(body) ?? {};
	// 202: cancel is deferred; the order reaches CANCELED or REFUNDED once in-flight deposits resolve.
	return { paymentOrderId: id, accepted: statusCode === 202 || statusCode === 200, statusCode, ...answer };
}
