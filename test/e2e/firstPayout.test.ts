/**
 * Issue 38's measure: a person's first payout from a blank canvas, in a real browser (Debian's
 * chromium over the DevTools protocol), against what `npm start` sets up (the sandbox with its demo
 * data as shipped, a local n8n with the packed package and the sandbox credential, the only one of
 * its type, so n8n gives it to the new node). Only clicks, keys and typing:
 *   new workflow → Manual Trigger → Edit Fields (JSON: the contractor table, columns Name, Wallet, Chain,
 *   Stablecoin, Amount, Invoice, as the console lists alice's and bob's wallets) → Split Out → Payment
 *   Order → Create with Order Fields → Map Automatically and the sender once (Sender User ID for Rows
 *   Without One); Business Key Field stays at its default (reference), which keys a row without that column
 *   by its Invoice column. Execute step. Three orders, each keyed by its invoice.
 * The test counts what it used (clicks, typed entries, nodes-panel searches, fields set) and prints it,
 * to compare with the issue's "before" (6 required fields, ~25 clicks, 4 typed entries, 5 drags) and with
 * this test's own before the Invoice default (21 clicks, 4 typed entries: Business Key Field was typed).
 * Then the same workflow run again creates nothing new (three orders found), and a fourth row paying
 * carol (a user of the demo subaccount) is refused, no order for her, with the fix that works (followed
 * and paying in test/nodes/action/guarantees/serviceErrors.test.ts; following it in this panel is not automated yet).
 * Screenshots in .e2e/screenshots/ (git-ignored); FIRST_PAYOUT_PICTURE=<file> also saves the
 * finished canvas and panel (the README's picture, docs/first-payout.png).
 */
import { join } from 'node:path';

import type { Browser } from '../../harness/browser';
import { repoRoot } from '../../harness/runtime';
import type { N8nInstance } from '../../harness/n8nProcess';
import { sandboxCredential } from '../../harness/sandbox';
import { walletOf } from '../../harness/sandboxClient';
import { stopAll, type SandboxStage } from '../../harness/stage';
import { createdColumn, editorPerson, ndvOpen, outputShown, param, plusAfter, type EditorPerson } from './editor';
import { describeBrowser, SCREENSHOTS, startBrowserStage } from './support';

jest.setTimeout(600_000);

const js = (value: unknown) => JSON.stringify(value);

describeBrowser('a first payout from a blank canvas in a real browser', () => {
	let stage: SandboxStage;
	let n8n: N8nInstance;
	let browser: Browser;
	let person: EditorPerson;
	const shot = (name: string) => browser.screenshot(join(SCREENSHOTS, `first-payout-${name}.png`));

	beforeAll(async () => {
		({ stage, n8n, browser } = await startBrowserStage({ seed: 'demo' }, (n8n, stage) => n8n.importCredential(sandboxCredential(stage.sandbox))));
		person = editorPerson(browser, n8n);
	});
	afterAll(async () => {
		// The page as the test left it (what a failure looked like).
		await browser?.screenshot(join(SCREENSHOTS, 'first-payout-last.png')).catch(() => undefined);
		await stopAll(browser, n8n, stage?.sandbox);
	});

	test('Manual Trigger → Edit Fields → Split Out → Create: three orders; a re-run creates none; carol is refused with the fix that works', async () => {
		await browser.setUpOwner(n8n.baseUrl, 'First', 'First-payout-1');
		const state = await stage.operator.state();
		const user = (label: string) => state.users.find((u: any) => u.label === label);
		const [alice, bob, carol] = ['alice', 'bob', 'carol'].map(user);
		// The contractor table, with what the console lists for alice and bob (main account, "Pay them with"
		// the main key); alice also pays, so it is her ID that goes into the panel.
		const rows = [
			{ Name: 'Alice', Wallet: walletOf(alice, 'base'), Chain: 'base', Stablecoin: 'USDC', Amount: '120.00', Invoice: 'INV-2001' },
			{ Name: 'Bob', Wallet: walletOf(bob, 'ethereum'), Chain: 'ethereum', Stablecoin: 'USDC', Amount: '95.50', Invoice: 'INV-2002' },
			{ Name: 'Bob (Solana wallet)', Wallet: walletOf(bob, 'solana'), Chain: 'solana', Stablecoin: 'USDC', Amount: '40.25', Invoice: 'INV-2003' },
		];
		const started = Date.now();
		const { used } = person;

		// 1. A new workflow (the overview's "Create workflow" button: counted as the one click it is).
		used.clicks++;
		await browser.goto(`${n8n.baseUrl}/workflow/new`);
		await person.click('the canvas add button', `document.querySelector('[data-test-id="canvas-add-button"]')`);
		await person.addFromPanel('manual', /^(Trigger manually|Manual Trigger)/i);
		const [trigger] = await person.added([]);
		// n8n opens no panel for the manual trigger; if it does, it is closed.
		if (await browser.evaluate(ndvOpen)) await person.closePanel();

		// 2. Edit Fields, JSON: the table pasted as one field "payees".
		await person.click('the + after the trigger', plusAfter(trigger));
		await person.addFromPanel('edit fields', /^Edit Fields/i);
		const [editFields] = await person.added([trigger]);
		await person.panel('Edit Fields', 'mode');
		await person.choose('mode', 'JSON');
		const jsonEditor = `${param('jsonOutput')}?.querySelector('.cm-content')`;
		await person.replace('JSON', jsonEditor, JSON.stringify({ payees: rows }, null, 1));
		await browser.waitFor('the table in the JSON field', `${jsonEditor}?.textContent.includes('INV-2003')`, 10_000, `${jsonEditor}?.textContent`);
		used.fields.push('JSON');
		await person.closePanel();

		// 3. Split Out: one item per row.
		await person.click('the + after Edit Fields', plusAfter(editFields));
		await person.addFromPanel('split out', /^Split Out/i);
		const [splitOut] = await person.added([trigger, editFields]);
		await person.replace('Fields To Split Out', `${param('fieldToSplitOut')}?.querySelector('input, textarea, .cm-content')`, 'payees');
		used.fields.push('Fields To Split Out');
		await person.closePanel();

		// 4. Clearinghouse → Create a payment order; the credential is the one there is.
		await person.click('the + after Split Out', plusAfter(splitOut));
		await person.addFromPanel('clearinghouse', /^Clearinghouse$/, /^Create a payment order/);
		const [create] = await person.added([trigger, editFields, splitOut]);
		await person.panel('Create', 'dataMode');
		await person.credentialGiven('Clearinghouse sandbox');
		await person.choose('dataMode', 'Map Automatically');
		// The sender picked by its label from the list (From List, the field's default mode): the ID is saved.
		await person.pickFromList('senderForAllRows', `alice (${alice.id})`);
		used.fields.push('Sender User ID for Rows Without One');
		// Business Key Field stays at its default, reference: a row without that column is keyed by its Invoice.
		expect(await browser.evaluate(`${param('businessKeyField')}?.querySelector('input, textarea')?.value`)).toBe('reference');
		await shot('1-create-panel');

		// 5. Execute step: the three orders in the output panel.
		await person.executeStep();
		const threeItems = `(() => { const t = ${outputShown} ?? ''; return /\\b3 items\\b/.test(t) && t.includes('INV-2003'); })()`;
		await browser.waitFor('three orders in the output panel', threeItems, 180_000, outputShown);
		const seconds = Math.round((Date.now() - started) / 1000);
		expect(await browser.evaluate(createdColumn)).toEqual(['true', 'true', 'true']);
		await shot('2-three-orders');
		// The README's picture (docs/first-payout.png), taken again when asked.
		if (process.env.UPDATE_README_PICTURE === '1') {
			// Without n8n's "Node executed successfully" toast over the output.
			await browser.evaluate(`document.querySelectorAll('.el-notification').forEach((e) => e.remove())`);
			await browser.screenshot(join(repoRoot, 'docs', 'first-payout.png'), 0.75);
		}

		const orders = async () => (await stage.operator.call<{ orders: any[] }>('GET', 'overview')).orders;
		const first = await orders();
		expect(first.map((o) => o.memo).sort()).toEqual(['INV-2001', 'INV-2002', 'INV-2003']);
		expect(first.every((o) => o.status === 'AWAITING_FUNDS')).toBe(true);
		// Each order was sent keyed by its row's Invoice.
		expect((await stage.operator.paymentPosts(0)).map((r) => r.body.idempotencyKey).sort()).toEqual(['INV-2001', 'INV-2002', 'INV-2003']);

		const figures =
			`first payout from a blank canvas: ${used.clicks} clicks, ${used.typed.length} typed entries (${used.typed.join('; ')}), ` +
			`${used.searches.length} nodes-panel searches (${used.searches.join(', ')}), ${used.keys.length} key shortcuts (${used.keys.join(', ')}), 0 drags, ` +
			`${used.fields.length} fields set (${used.fields.join('; ')}), of which the Create node's: ${used.fields.filter((f) => /dataMode|Sender|Business/.test(f)).length}; ` +
			`${seconds} s of a script's time (nodes: ${[trigger, editFields, splitOut, create].join(' → ')})`;
		console.log(figures);
		// The "before": about 25 clicks, 4 typed entries, 5 drags, 6 required fields.
		expect(used.clicks).toBeLessThan(25);
		expect(used.typed.length).toBeLessThan(4);

		// 6. Run again: the three rows are sent again with their keys, and nothing new is made.
		// The output panel changes (created: true becomes false) once the run is done.
		const firstOutput = await browser.evaluate<string>(outputShown);
		await person.executeStep('Execute step again');
		await browser.waitFor('the re-run in the output panel', `${threeItems} && ${outputShown} !== ${js(firstOutput)}`, 180_000, outputShown);
		expect(await browser.evaluate(createdColumn)).toEqual(['false', 'false', 'false']);
		expect((await orders()).map((o) => o.id).sort()).toEqual(first.map((o) => o.id).sort());
		await shot('3-rerun');

		// 7. Carol, a user of the demo subaccount, added as a fourth row: her order is refused, nothing new is
		// made, and the error says the fix that works (pay her from that subaccount).
		const carolRow = { Name: 'Carol', Wallet: walletOf(carol, 'base'), Chain: 'base', Stablecoin: 'USDC', Amount: '60.00', Invoice: 'INV-2004' };
		await person.closePanel();
		await person.openNode(editFields);
		await person.replace('JSON', jsonEditor, JSON.stringify({ payees: [...rows, carolRow] }, null, 1));
		await browser.waitFor('carol in the JSON field', `${jsonEditor}?.textContent.includes('INV-2004')`, 10_000, `${jsonEditor}?.textContent`);
		await person.closePanel();
		await person.openNode(create);
		await person.executeStep('Execute step with carol');
		const ndvText = `document.querySelector('[data-test-id="ndv"]')?.innerText`;
		await browser.waitFor(
			'the refusal of carol, with the fix',
			`(() => { const t = ${ndvText} ?? ''; return t.includes('Row 4 of 4 (INV-2004)') && t.includes('Subaccount ID'); })()`,
			180_000,
			ndvText,
		);
		await shot('4-carol-refused');
		expect((await orders()).map((o) => o.id).sort()).toEqual(first.map((o) => o.id).sort());
		// Following that fix (Subaccount ID and a sender of it) pays her: test/nodes/action/guarantees/serviceErrors.test.ts.
	});
});
