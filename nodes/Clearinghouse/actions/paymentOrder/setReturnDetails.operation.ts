/** PUT /payment-orders/{id}/return-details with `If-Match: "<revision>"` and `Idempotency-Key`: keyed, so the transport may repeat it. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { idempotencyFieldsFor, optionsCollection, paymentOrderLocator, subaccountOrderOption, walletsField } from '../fields';
import { chainWallets, operationError, locatorValue, requiredText, subaccountQuery } from '../parameters';
import { sendKeyed } from '../keyedSend';
import { checkChainAndAsset } from '../supportedAssets';
import { dryRunOption } from '../dryRun';

const MAX_RETURN_WALLETS = 32;

const properties: INodeProperties[] = [
	paymentOrderLocator,
	{
		displayName: 'Return User ID',
		name: 'userId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 80146f91-be0e-47f5-ade4-12f4d64b2c88',
		description: 'System ID of a user of the same account who owns the return wallets',
	},
	{
		...walletsField(
			'wallets',
			'Return Wallets',
			'The complete list (1-32, one per chain) of active wallets of that user; it replaces the current list. Include a wallet for the chain of every deposit that may still need a return.',
		),
		required: true,
	},
	...idempotencyFieldsFor('returnDetails'),
	optionsCollection([
		dryRunOption,
		{
			displayName: 'Expected Revision',
			name: 'revision',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 0,
			description:
				'The returns.revision you expect the order to have (sent as If-Match). Leave unset to read the current revision from the order first; set it to refuse replacing details that changed since you read them.',
		},
		subaccountOrderOption,
	]),
];

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['setReturnDetails'] } }, properties);

export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorValue(ctx, 'paymentOrderId', itemIndex, 'Payment Order');
	const userId = requiredText(ctx, 'userId', itemIndex, 'Return User ID');
	const wallets = chainWallets(ctx, ctx.getNodeParameter('wallets', itemIndex, {}), itemIndex, 'Return Wallets', true);
	if (wallets.length < 1 || wallets.length > MAX_RETURN_WALLETS) {
		throw operationError(ctx, `Return Wallets must hold 1 to ${MAX_RETURN_WALLETS} wallets (got ${wallets.length})`, itemIndex);
	}
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const subaccount = subaccountQuery(options);
	let revision: number;
	let revisionSource: 'given' | 'read';
	if (options.revision !== undefined && options.revision !== '') {
		revision = Number(options.revision);
		if (!Number.isInteger(revision) || revision < 0) {
			throw operationError(ctx, `Expected Revision must be a whole number of 0 or more (got "${String(options.revision)}")`, itemIndex);
		}
		revisionSource = 'given';
	} else {
		const order = await apiRequest(ctx, {
			method: 'GET',
			path: `/payment-orders/${encodeURIComponent(id)}`,
			qs: subaccount,
			itemIndex,
		});
		revision = Number((order.returns as IDataObject | undefined)?.revision ?? 0);
		revisionSource = 'read';
	}
	// The expected revision is part of the request: a retry against a changed revision meets the 409.
	const body: IDataObject = { userId, wallets, ...subaccount };
	const request = {
		record: 'return details',
		method: 'PUT',
		path: `/payment-orders/${encodeURIComponent(id)}/return-details`,
		keyIn: 'header',
		headers: { 'If-Match': `"${revision}"` },
		body,
	} as const;
	// After the key: a refused Derived key sends nothing, not even the read of the supported pairs.
	const guard = () =>
		checkChainAndAsset(ctx, itemIndex, body, { operation: 'Payment Order → Set Return Details', sends: 'return details', path: request.path });
	const { key, response, sent } = await sendKeyed(ctx, itemIndex, { ...request, guard });
	// The revision the first try expected (a retry sends the first try's request).
	const expectedRevision = Number(sent.headers['If-Match'].slice(1, -1));
	return { paymentOrderId: id, ...response, expectedRevision, revisionSource, idempotencyKey: key };
}

export { businessKeyReference as rowReference } from '../idempotencyKey';
