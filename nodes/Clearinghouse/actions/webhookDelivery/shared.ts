import type { INodeProperties } from 'n8n-workflow';

export const deliveryIdField: INodeProperties = {
	displayName: 'Delivery ID',
	name: 'deliveryId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 0b7e6c1d-2f48-4a93-b5e1-7c6d8e9f0a12',
	description: 'The ID of the webhook delivery (from Get Many deliveries, or the delivery header of a received webhook)',
};

export const DELIVERY_STATUSES = ['PENDING', 'DISPATCHED', 'DELIVERED', 'FAILED', 'SKIPPED'];
