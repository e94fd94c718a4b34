import type { IDataObject } from 'n8n-workflow';

/** The entries of a response whose envelope the specification does not show. */
export function depositAddressEntries(body: unknown): IDataObject[] {
	if (Array.isArray(body)) return body as IDataObject[];
	if (body && typeof body === 'object') {
		for (const key of ['depositAddresses', 'addresses', 'data']) {
			const value = (body as IDataObject)[key];
			if (Array.isArray(value)) return value as IDataObject[];
			if (value && typeof value === 'object') return depositAddressEntries(value);
		}
	}
	return [];
}
