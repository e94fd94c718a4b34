// The sandbox console: plain browser JavaScript, no build step. Every action is one call of the
// operator API (/sandbox/...) or, where a user's node would make it, of the public API with the
// sandbox's own key; all requests are same-origin JSON, so each click can also be scripted.
'use strict';

let state = null;
let overview = null;

const $ = (selector) => document.querySelector(selector);
const esc = (value) => String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const short = (text) => (text && text.length > 16 ? `${text.slice(0, 8)}…${text.slice(-4)}` : (text ?? ''));

function say(text, isError = false) {
	const box = $('#message');
	box.textContent = text;
	box.className = isError ? 'error' : '';
}

async function call(method, path, body, headers = {}) {
	const response = await fetch(path, {
		method,
		headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	const parsed = text ? JSON.parse(text) : null;
	if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${parsed?.message ?? parsed?.error ?? text}`);
	return parsed;
}
const operator = (method, path, body) => call(method, `/sandbox${path}`, body);
const publicApi = (method, path, body) => call(method, `/api/v1${path}`, body, { 'x-api-key': state.apiKey });

/** Every wallet of the account's users, as `<option>`s: the senders a deposit can come from. */
function walletOptions() {
	return state.users
		.flatMap((u) =>
			u.wallets.map(
				(w) =>
					`<option value="${esc(`${w.chain}|${w.address}`)}">${esc(u.label)} · ${esc(w.chain)} · ${esc(short(w.address))}${w.status === 'ACTIVE' ? '' : ` (${esc(w.status)})`}</option>`,
			),
		)
		.join('');
}

function renderOrders() {
	const rows = overview.orders.map((o) => {
		const waiting = o.status === 'AWAITING_FUNDS' || o.status === 'PARTIALLY_FUNDED';
		const fund = waiting
			? `<select data-field="sender">${walletOptions()}</select>
				<select data-field="amount"><option value="full">full</option><option value="partial">partial (half)</option><option value="over">over (+10%)</option></select>`
			: '';
		const actions = [
			waiting ? '<button data-action="fund-attribute">Fund and attribute</button><button data-action="fund-hash">Fund, show hash</button>' : '',
			o.status === 'FUNDED' ? '<button data-action="fail-distribution">Fail next distribution</button>' : '',
			waiting ? '<button data-action="expire">Expire</button>' : '',
		].join('');
		// Where the order stands in the netting (or why it waits for the next window), and its surplus.
		const standing = [o.netting, o.surplus]
			.filter(Boolean)
			.map((text) => `<div>${esc(text)}</div>`)
			.join('');
		return `<tr data-order="${esc(o.id)}" data-amount="${esc(o.amountUsd)}">
			<td><code title="${esc(o.id)}">${esc(o.id)}</code></td><td>${esc(o.memo)}</td>
			<td>${esc(o.amountUsd)} ${esc(o.asset)}</td><td>${esc(o.toChain)} · ${esc(short(o.toAddress))}</td>
			<td class="status">${esc(o.status)}</td><td>${esc(o.receivedTotal)}</td><td class="standing">${standing}</td><td>${fund}</td><td>${actions}</td></tr>`;
	});
	replaceRows('#orders', rows, 'No payment orders yet: run a workflow that creates one.');
}

/**
 * Which account a user belongs to, and how an order to them is made: each user belongs to one
 * account, and an order may pay only wallets of the account it is made for (with a sender of it).
 */
function accountOf(user) {
	if (user.accountId === state.accountId) {
		return { name: 'main account', pay: "Any key of the main account: the credential's own (no Subaccount ID), a sender of the main account" };
	}
	const sub = state.subaccounts.find((s) => s.id === user.accountId);
	const name = `subaccount ${sub?.name ?? ''}`.trim();
	return {
		name: `${name} ${user.accountId}`,
		pay: `From that subaccount: Additional Fields → Subaccount ID ${user.accountId} with the main account's key, or the subaccount's own key${sub?.apiKey ? ` (${sub.apiKey})` : ''}; Sender User ID of a user of that subaccount`,
	};
}

function renderWallets() {
	const rows = state.users.flatMap((u) =>
		u.wallets.map(
			(
				w,
			) => `<tr data-chain="${esc(w.chain)}" data-address="${esc(w.address)}" data-account="${esc(u.accountId)}"><td>${esc(u.label)} <code class="muted">${esc(u.id)}</code></td>
			<td class="account">${esc(accountOf(u).name)}</td><td class="pay-with">${esc(accountOf(u).pay)}</td>
			<td>${esc(w.chain)}</td><td><code>${esc(w.address)}</code></td><td class="status">${esc(w.status)}</td>
			<td>${w.status === 'ACTIVE' ? '' : '<button data-action="activate">Activate</button>'}</td></tr>`,
		),
	);
	replaceRows('#wallets', rows, 'No users.');
}

/** Outcomes that need a person: the delivery filter's "only problems". */
const PROBLEMS = new Set(['failed', 'retrying', 'skipped', 'dropped']);

function renderDeliveries() {
	const endpoints = new Map(overview.endpoints.map((e) => [e.id, e]));
	// Which workflow each endpoint belongs to (a trigger names it in the endpoint's description).
	$('#endpoints').innerHTML = overview.endpoints
		.map((e) => `<li data-endpoint="${esc(e.id)}"><strong>${esc(e.name)}</strong> · ${esc(e.status)} · <code class="muted">${esc(e.url)}</code></li>`)
		.join('');
	const outcome = $('#delivery-outcome').value;
	const needle = $('#delivery-text').value.trim().toLowerCase();
	const shown = overview.deliveries.filter((d) => {
		const e = endpoints.get(d.endpointId);
		if (outcome === 'problem' && !PROBLEMS.has(d.outcome)) return false;
		if (outcome === 'queued' && d.outcome !== 'queued' && d.outcome !== 'sending') return false;
		if (outcome !== '' && outcome !== 'problem' && outcome !== 'queued' && d.outcome !== outcome) return false;
		const text = [d.memo, d.orderId, d.orderStatus, d.type, d.says, d.id, e?.name, e?.url].join(' ').toLowerCase();
		return needle === '' || text.includes(needle);
	});
	$('#delivery-count').textContent = shown.length === overview.deliveries.length ? '' : `${shown.length} of ${overview.deliveries.length} shown`;
	const rows = shown.map((d) => {
		const e = endpoints.get(d.endpointId);
		const event = d.orderStatus ? `${d.memo || short(d.orderId)} → ${d.orderStatus}` : d.type;
		const replay = d.replayOf ? `<div class="muted">replay of ${esc(short(d.replayOf))}</div>` : '';
		const answers = d.answers.length
			? `<details><summary>${d.attempts === 1 ? '1 attempt' : `${esc(d.attempts)} attempts`}</summary><ol>${d.answers
					.map((a) => `<li value="${esc(a.attempt)}">${esc(a.at.slice(11, 19))}: ${esc(a.says)}${a.body ? `<br><code>${esc(a.body)}</code>` : ''}</li>`)
					.join('')}</ol></details>`
			: '';
		return `<tr data-delivery="${esc(d.id)}" data-outcome="${esc(d.outcome)}" data-endpoint="${esc(d.endpointId)}">
			<td title="${esc(e?.url ?? '')}">${esc(e?.name ?? `deleted endpoint ${short(d.endpointId)}`)}${e && e.status !== 'ENABLED' ? ` <b>(${esc(e.status)})</b>` : ''}</td>
			<td>${esc(event)}${replay}</td><td class="outcome outcome-${esc(d.outcome)}">${esc(d.says)}</td>
			<td>${answers}</td><td class="muted">${esc(d.status)} · <code>${esc(short(d.id))}</code></td>
			<td><button data-action="replay">Replay</button></td></tr>`;
	});
	const idle =
		overview.deliveries.length > 0
			? 'No delivery matches the filter.'
			: overview.endpoints.length
				? 'No deliveries yet.'
				: 'No webhook endpoints: publish a workflow with the Clearinghouse Trigger.';
	replaceRows('#deliveries', rows, idle);
	// A disabled endpoint receives nothing (its events are SKIPPED): say so, and why, above the table.
	$('#endpoint-health').innerHTML = overview.endpoints
		.filter((e) => e.status === 'DISABLED')
		.map(
			(e) =>
				`<p class="warning" data-endpoint="${esc(e.id)}"><strong>Endpoint ${esc(e.name)} (${esc(e.url)}) is DISABLED</strong> since ${esc(e.disabledAt)}: ${esc(e.disabledReason)}. Re-enable it and replay what it missed with the Clearinghouse node's Webhook Endpoint → Recover (example 6), or publish its workflow again.</p>`,
		)
		.join('');
}

function renderOutbox() {
	const rows = overview.outbox.map(
		(m) => `<tr><td>${esc(m.seq)}</td><td>${esc(m.channel)}</td><td>${esc(m.at)}</td>
		<td>${esc(typeof m.body?.text === 'string' ? m.body.text : JSON.stringify(m.body))}</td></tr>`,
	);
	replaceRows('#outbox', rows, 'Nothing posted yet.');
	$('#faults').innerHTML = overview.faults
		.map((f) => `<li>${esc(f.method ?? 'any')} ${esc(f.path)} → ${esc(f.commitThen500 ? 'commit, then 500' : f.status)} (${esc(f.count)} left)</li>`)
		.join('');
}

/** Keeps the user's choices (sender, amount) in rows that stay: only rows that changed are replaced. */
function replaceRows(table, rows, empty) {
	const body = $(`${table} tbody`);
	const html = rows.length ? rows : [`<tr><td colspan="9" class="muted">${esc(empty)}</td></tr>`];
	const old = [...body.children];
	html.forEach((row, i) => {
		const template = document.createElement('template');
		template.innerHTML = row.trim();
		const fresh = template.content.firstElementChild;
		const current = old[i];
		if (!current) body.appendChild(fresh);
		else if (current.dataset.html !== row) {
			const keep = [...current.querySelectorAll('select')].map((s) => [s.dataset.field, s.value]);
			for (const [field, value] of keep) {
				const select = fresh.querySelector(`select[data-field="${field}"]`);
				if (select && current.dataset.key === fresh.dataset.order + fresh.dataset.delivery) select.value = value;
			}
			body.replaceChild(fresh, current);
		}
		const placed = body.children[i];
		placed.dataset.html = row;
		placed.dataset.key = placed.dataset.order + placed.dataset.delivery;
	});
	for (const extra of old.slice(html.length)) extra.remove();
}

async function refresh() {
	try {
		[state, overview] = await Promise.all([operator('GET', '/state'), operator('GET', '/overview')]);
		$('#account').textContent = `Account ${state.accountId} · ${state.account.status} · KYB ${state.account.kyb} · clock ${state.clock.now}`;
		$('#netting').textContent =
			`Netting window ${overview.epoch} is open: closing it delivers every FUNDED order.` +
			(overview.lastNetting ? ` Last close (${overview.lastNetting.at.slice(11, 19)} UTC): ${overview.lastNetting.says}` : '');
		renderOrders();
		renderWallets();
		renderDeliveries();
		renderOutbox();
		$('#updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
		document.body.dataset.ready = 'true';
	} catch (error) {
		say(`Cannot read the sandbox: ${error.message}`, true);
	}
}

async function fund(row, attribute) {
	const [chain, sender] = row.querySelector('select[data-field="sender"]').value.split('|');
	const kind = row.querySelector('select[data-field="amount"]').value;
	const amount = Number(row.dataset.amount);
	const amountUsd = kind === 'partial' ? Math.round(amount * 5000) / 10000 : kind === 'over' ? Math.round(amount * 11000) / 10000 : amount;
	const paymentOrderId = row.dataset.order;
	const deposit = await operator('POST', '/deposits', { paymentOrderId, sender, chain, asset: 'USDC', amountUsd });
	if (!attribute) {
		say(`Deposited ${amountUsd} USDC on ${chain}. Paste this hash into Submit Transactions: ${deposit.transactionHash}`);
		return;
	}
	const answer = await publicApi('POST', `/payment-orders/${paymentOrderId}/transactions`, { transactions: [{ hash: deposit.transactionHash, chain }] });
	say(`Deposited ${amountUsd} USDC on ${chain} and attributed ${deposit.transactionHash} (${answer.data.transfersProcessed} transfer processed).`);
}

const actions = {
	'close-netting': async () => say((await operator('POST', '/netting/close', {})).says),
	'fund-attribute': (row) => fund(row, true),
	'fund-hash': (row) => fund(row, false),
	'fail-distribution': async (row) => {
		await operator('POST', `/payment-orders/${row.dataset.order}/fail-distribution`, {});
		say(`The next distribution of ${row.dataset.order} will fail.`);
	},
	expire: async (row) => {
		await operator('POST', `/payment-orders/${row.dataset.order}/expire`, {});
		say(`Order ${row.dataset.order} expired.`);
	},
	activate: async (row) => {
		await operator('POST', '/wallets/activate', { chain: row.dataset.chain, address: row.dataset.address });
		say(`Wallet ${row.dataset.address} on ${row.dataset.chain} is ACTIVE.`);
	},
	replay: async (row) => {
		const replay = await publicApi('POST', `/webhooks/deliveries/${row.dataset.delivery}/replay`, {});
		say(`Replayed as delivery ${replay.id ?? JSON.stringify(replay)}.`);
	},
};

document.addEventListener('click', async (event) => {
	const button = event.target.closest('button[data-action]');
	if (!button || button.closest('form')) return; // the fault form handles its own submit
	const run = actions[button.dataset.action];
	if (!run) return;
	button.disabled = true;
	try {
		await run(button.closest('tr'));
	} catch (error) {
		say(error.message, true);
	} finally {
		button.disabled = false;
		await refresh();
	}
});

$('#fault').addEventListener('submit', async (event) => {
	event.preventDefault();
	const form = new FormData(event.target);
	const fault = { path: form.get('path'), count: Number(form.get('count') || 1) };
	if (form.get('method')) fault.method = form.get('method');
	if (form.get('commitThen500')) fault.commitThen500 = true;
	else if (form.get('status')) fault.status = Number(form.get('status'));
	if (form.get('retryAfter')) fault.retryAfter = Number(form.get('retryAfter'));
	try {
		await operator('POST', '/faults', fault);
		say(`Fault injected for ${fault.path}.`);
	} catch (error) {
		say(error.message, true);
	}
	await refresh();
});

// The delivery filter applies at once, not at the next refresh.
$('#delivery-outcome').addEventListener('change', renderDeliveries);
$('#delivery-text').addEventListener('input', renderDeliveries);

refresh();
setInterval(refresh, 1500);
