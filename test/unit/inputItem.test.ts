import { InputFieldError, keyedRow, orderFieldsFromItem, rowsSharingKey } from '../../nodes/Clearinghouse/actions/paymentOrder/inputItem';

const row = {
	fromUserId: ' usr_1 ',
	toAddress: '0xabc',
	toChain: 'ethereum',
	asset: 'USDC',
	amountUsd: '12.5',
	memo: 'm',
	reference: 'INV-1',
};

describe('orderFieldsFromItem (Map Automatically)', () => {
	test('reads the fields by exact name, trims text, keeps the amount as found', () => {
		expect(orderFieldsFromItem(row, 'reference')).toEqual({
			fromUserId: 'usr_1',
			toAddress: '0xabc',
			toChain: 'ethereum',
			asset: 'USDC',
			amountUsd: '12.5',
			memo: 'm',
			businessKey: 'INV-1',
			businessKeyColumn: 'reference',
		});
		expect(orderFieldsFromItem({ ...row, amountUsd: 7 }).amountUsd).toBe(7);
	});

	test('no key field: no business key read', () => {
		expect(orderFieldsFromItem(row)).not.toHaveProperty('businessKey');
	});

	test('memo is optional; numbers are taken as text', () => {
		const { memo, ...rest } = row;
		void memo;
		expect(orderFieldsFromItem(rest).memo).toBe('');
		expect(orderFieldsFromItem({ ...row, fromUserId: 42 }).fromUserId).toBe('42');
	});

	test.each([
		['missing', { toAddress: undefined }, 'Input field "toAddress" is missing from the input item'],
		['null', { asset: null }, 'Input field "asset" is missing from the input item'],
		['empty', { toChain: '  ' }, 'Input field "toChain" is empty in the input item'],
		['an object', { toChain: { a: 1 } }, 'Input field "toChain" must be text (got object)'],
		['a list', { fromUserId: ['u'] }, 'Input field "fromUserId" must be text (got a list)'],
		['a boolean', { memo: true }, 'Input field "memo" must be text (got boolean)'],
		['NaN', { toAddress: NaN }, 'Input field "toAddress" must be text (got number)'],
		['no amount', { amountUsd: undefined }, 'Input field "amountUsd" is missing from the input item'],
		[
			'no key',
			{ reference: undefined },
			'Input field "reference" is missing from the input item (it holds the business key; a column named "Invoice", "Invoice Number" or "Invoice ID" also does)',
		],
	])('refuses a field that is %s', (_, change, message) => {
		expect(() => orderFieldsFromItem({ ...row, ...change } as never, 'reference')).toThrow(InputFieldError);
		expect(() => orderFieldsFromItem({ ...row, ...change } as never, 'reference')).toThrow(message);
	});

	test('an empty key field name is refused', () => {
		expect(() => orderFieldsFromItem(row, ' ')).toThrow('is empty: name the input field that holds the key');
	});

	test('only own fields count: nothing inherited, not even through __proto__', () => {
		const inherited = Object.create({ toAddress: '0xabc' });
		Object.assign(inherited, { ...row, toAddress: undefined });
		delete inherited.toAddress;
		expect(() => orderFieldsFromItem(inherited)).toThrow('Input field "toAddress" is missing');
		const polluted = JSON.parse('{"__proto__": {"amountUsd": "1"}}');
		expect(() => orderFieldsFromItem({ ...row, amountUsd: undefined, ...polluted })).toThrow('"amountUsd" is missing');
	});
});

describe('Map Automatically: the columns a table already has', () => {
	test.each([
		[{ 'Sender User ID': 'u1', 'Recipient Address': '0xa', Chain: 'base', Asset: 'USDC', 'Amount (USD)': '1', Memo: 'm' }],
		[{ sender: 'u1', WALLET: '0xa', network: 'base', token: 'USDC', amount: '1', invoice: 'm' }],
		[{ sender_id: 'u1', wallet_address: '0xa', chain: 'base', stablecoin: 'USDC', amount_usd: '1', 'Invoice Number': 'm' }],
	])('%j maps to the order fields', (json) => {
		expect(orderFieldsFromItem(json)).toEqual({ fromUserId: 'u1', toAddress: '0xa', toChain: 'base', asset: 'USDC', amountUsd: '1', memo: 'm' });
	});

	test('the API name wins over an alias column; two alias columns for one field are refused', () => {
		expect(orderFieldsFromItem({ ...row, Wallet: '0xother' }).toAddress).toBe('0xabc');
		const { toAddress, ...rest } = row;
		void toAddress;
		expect(() => orderFieldsFromItem({ ...rest, Wallet: '0x1', Address: '0x2' })).toThrow(
			'Input field "toAddress" is given by 2 columns ("Wallet", "Address")',
		);
	});

	test('the sender given once fills rows without one; a row with its own keeps it', () => {
		const { fromUserId, ...rest } = row;
		void fromUserId;
		expect(orderFieldsFromItem(rest, undefined, 'u-all').fromUserId).toBe('u-all');
		expect(orderFieldsFromItem({ ...rest, Sender: 'u-row' }, undefined, 'u-all').fromUserId).toBe('u-row');
		expect(() => orderFieldsFromItem(rest)).toThrow('Input field "fromUserId" is missing from the input item (or a column named "Sender User ID" or "Sender")');
	});
});

describe('the business key column', () => {
	const { reference, ...noReference } = row;
	void reference;
	test('Business Key Field left at "reference": a row without it takes its Invoice (Number, ID) column, any case', () => {
		expect(orderFieldsFromItem({ ...noReference, Invoice: 'I-1' }, 'reference')).toMatchObject({ businessKey: 'I-1', businessKeyColumn: 'Invoice' });
		expect(orderFieldsFromItem({ ...noReference, invoice_number: 7 }, 'reference')).toMatchObject({ businessKey: 7, businessKeyColumn: 'invoice_number' });
		// The named column wins when the row has it.
		expect(orderFieldsFromItem({ ...row, Invoice: 'I-1' }, 'reference').businessKey).toBe('INV-1');
		expect(() => orderFieldsFromItem({ ...noReference, Invoice: 'I-1', 'Invoice ID': 'I-2' }, 'reference')).toThrow('is given by 2 columns');
	});

	test('any other Business Key Field is read exactly', () => {
		expect(() => orderFieldsFromItem({ ...row, Invoice: 'I-1' }, 'invoice')).toThrow(
			'Input field "invoice" is missing from the input item (it holds the business key)',
		);
	});
});

describe('rows of one run by Business Key', () => {
	const keyed = (index: number, json: object) => keyedRow(index, orderFieldsFromItem(json as never, 'reference'));

	test("a row's key and payment come from the fields read once, the amount exact", () => {
		expect(keyed(2, { ...row, amountUsd: '12.50' })).toEqual({
			index: 2,
			key: 'INV-1',
			column: 'reference',
			payment: { fromUserId: 'usr_1', toAddress: '0xabc', toChain: 'ethereum', asset: 'USDC', amountUsd: '12.5', memo: 'm' },
		});
	});

	test('a row without a valid key or amount has no keyed row (it fails on its own)', () => {
		expect(keyed(0, { ...row, reference: '' })).toBeUndefined();
		expect(keyed(0, { ...row, amountUsd: '1.00001' })).toBeUndefined();
		// Fields read without the key's column (Derived keys) carry no key.
		expect(keyedRow(0, orderFieldsFromItem(row))).toBeUndefined();
	});

	test('rows sharing a key are listed with what differs; none differing is one payment listed twice', () => {
		const first = keyed(0, row)!;
		const rows = [first, keyed(1, row), keyed(2, { ...row, amountUsd: '13' }), keyed(3, { ...row, reference: 'INV-2' }), undefined];
		expect(rowsSharingKey(rows, first)).toEqual([
			{ index: 1, differing: [] },
			{ index: 2, differing: ['amountUsd "12.5" here, "13" there'] },
		]);
		expect(rowsSharingKey(rows, rows[3]!)).toEqual([]);
	});
});
