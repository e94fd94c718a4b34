import { createServer } from 'node:net';

/*
 * Ports for processes we start later (n8n, its task broker, PostgreSQL, Redis). A port asked of
 * the OS with listen(0) and closed again can be handed out again at once: CI once gave one n8n
 * the same port for its server and its task broker. So ports come from a band below Linux's
 * ephemeral range (32768+, which listen(0) and outgoing connections use), one band per Jest
 * worker so parallel suites never pick the same port, never twice in a process, and only after
 * a bind on it succeeded (another program may hold it).
 */
const BAND_SIZE = 500;
const FIRST_PORT = 20_000;
const BANDS = 24; // 20000..31999
const handedOut = new Set<number>();
// TEST_PORT_BAND_OFFSET moves a whole jest run to other bands, so that two runs on one machine (two
// work trees) never share a band.
const worker = (Number(process.env.JEST_WORKER_ID ?? 0) + Number(process.env.TEST_PORT_BAND_OFFSET ?? 0)) % BANDS;
const bandStart = FIRST_PORT + worker * BAND_SIZE;
// A random start inside the band, so a process left over from an earlier run is rarely met.
let cursor = Math.floor(Math.random() * BAND_SIZE);

function canListen(port: number): Promise<boolean> {
	return new Promise((resolveListen) => {
		const server = createServer();
		server.unref();
		server.once('error', () => resolveListen(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolveListen(true)));
	});
}

/** A TCP port on 127.0.0.1 that was free a moment ago and that this process has not handed out. */
export async function freePort(): Promise<number> {
	for (let tried = 0; tried < BAND_SIZE; tried++) {
		const port = bandStart + (cursor++ % BAND_SIZE);
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		if (await canListen(port)) return port;
	}
	throw new Error(`no free port left in ${bandStart}-${bandStart + BAND_SIZE - 1}`);
}
