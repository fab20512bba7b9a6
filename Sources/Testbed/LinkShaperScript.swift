/// The user-space link shaper (Python 3 standard library, asyncio), written to the run directory
/// and started with its JSON configuration as the only argument. Kernel netem is not available on
/// the target machines, and `tc tbf` shapes a whole namespace, not each connection.
///
/// Each listener stands for one network class in front of one PoP (or the edge → shield path).
/// Every accepted connection takes the next `[rttSeconds, bitsPerSecond, timeoutSeconds]` entry of its
/// listener's list (drawn by the testbed from the scenario's distributions; the retransmission
/// timeout is `LossRecovery`'s, from the RTT) and, in each direction:
/// - paces its bytes at `bitsPerSecond` (each slice of about 10 ms is released when the previous
///   one has been serialised: a token bucket with a one-slice burst; 0 = unlimited; when the event
///   loop runs late while bytes wait, it catches up on the schedule instead of shifting it), and
/// - delivers each slice `rttSeconds / 2` after it was serialised (one-way delay), through a
///   bounded queue so a slow reader back-pressures the sender.
/// The first request byte is held `handshakeRoundTrips × rtt` more (DNS + TCP + TLS set-up of the
/// scenario's `connectionSetup`; the loopback connect itself is instant).
/// Downstream, each 1460-byte segment (counted from the connection's first response byte; a slice
/// holds those that start in it) is lost with the listener's `segmentLossProbability`: its slice,
/// and so everything after it (head-of-line, as TCP delivers in order), leaves one timeout later.
/// The draws come from a generator seeded with (`lossSeed`, listener, connection index), so a
/// connection's losses are reproducible.
/// So a response of B bytes on a new connection with k lost segments arrives
/// (handshake + 1) × RTT + 8B / rate + k × timeout after the request was written.
///
/// It writes per-listener connection and byte counts, and the lost segments of each connection in
/// accept order, to `statsFile` when it stops, and exits when its parent dies (no stray process)
/// or on SIGTERM / SIGINT.
enum LinkShaperScript {
    static let fileName = "link_shaper.py"
    static let source = #"""
import asyncio, json, os, random, signal, sys, time

SLICE_SECONDS = 0.010
SEGMENT_BYTES = 1460
QUEUE_SLICES = 64
UNLIMITED_CHUNK = 65536

class Listener:
    def __init__(self, spec):
        self.name = spec["name"]
        self.port = spec["port"]
        self.upstream = spec["upstreamPort"]
        self.handshake = spec.get("handshakeRoundTrips", 0)
        self.links = spec["links"] or [[0.0, 0.0, 0.0]]
        self.loss = spec.get("segmentLossProbability", 0.0)
        self.seed = spec.get("lossSeed", 0)
        self.lost = []
        self.connections = 0
        self.bytes_down = 0
        self.bytes_up = 0

class Loss:
    """Segment loss on one connection's downstream: each segment starting in a slice is lost with
    probability p, and each loss holds the slice (and what follows) one timeout."""
    def __init__(self, listener, index, timeout):
        self.p = listener.loss
        self.timeout = timeout
        self.rng = random.Random("%d/%s/%d" % (listener.seed, listener.name, index))
        self.position = 0
        self.slot = len(listener.lost)
        self.listener = listener
        listener.lost.append(0)

    def delay(self, size):
        first = -(-self.position // SEGMENT_BYTES)
        self.position += size
        last = -(-self.position // SEGMENT_BYTES)
        lost = sum(1 for _ in range(last - first) if self.rng.random() < self.p)
        self.listener.lost[self.slot] += lost
        return lost * self.timeout

async def pump(reader, writer, rate, delay, hold, listener, down, loss=None):
    queue = asyncio.Queue(maxsize=QUEUE_SLICES)
    chunk = UNLIMITED_CHUNK if rate <= 0 else max(1460, min(UNLIMITED_CHUNK, int(rate / 8 * SLICE_SECONDS)))

    async def read_side():
        loop = asyncio.get_running_loop()
        sent_until = loop.time() + hold
        try:
            while True:
                # Bytes already buffered before this read mean the sender was ready and only this
                # loop was late: keep the schedule (catch up). Otherwise the link was idle and the
                # new data starts when it arrived. So a busy event loop does not slow the link down.
                behind = len(getattr(reader, "_buffer", b"")) > 0
                data = await reader.read(chunk)
                if not data:
                    break
                now = loop.time()
                start = sent_until if behind else max(now, sent_until)
                if loss is not None:
                    start += loss.delay(len(data))
                sent_until = start + (len(data) * 8 / rate if rate > 0 else 0)
                await queue.put((sent_until + delay, data))
                wait = sent_until - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
        except (ConnectionError, OSError):
            pass
        await queue.put(None)

    async def write_side():
        loop = asyncio.get_running_loop()
        try:
            while True:
                item = await queue.get()
                if item is None:
                    if writer.can_write_eof():
                        writer.write_eof()
                    await writer.drain()
                    return
                at, data = item
                wait = at - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                writer.write(data)
                await writer.drain()
                if down:
                    listener.bytes_down += len(data)
                else:
                    listener.bytes_up += len(data)
        except (ConnectionError, OSError):
            pass

    await asyncio.gather(read_side(), write_side())

async def handle(listener, client_reader, client_writer):
    index = listener.connections
    listener.connections += 1
    rtt, rate, timeout = (listener.links[index % len(listener.links)] + [0.0, 0.0, 0.0])[:3]
    loss = Loss(listener, index, timeout) if listener.loss > 0 else None
    try:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", listener.upstream)
    except OSError:
        client_writer.close()
        return
    hold = listener.handshake * rtt
    try:
        await asyncio.gather(
            pump(client_reader, up_writer, 0.0, rtt / 2, hold, listener, False),
            pump(up_reader, client_writer, rate, rtt / 2, 0.0, listener, True, loss))
    finally:
        for w in (up_writer, client_writer):
            try:
                w.close()
            except Exception:
                pass

async def watch_parent(parent, stop):
    while not stop.is_set():
        if os.getppid() != parent:
            stop.set()
            return
        await asyncio.sleep(0.25)

async def main(config):
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    listeners = [Listener(s) for s in config["listeners"]]
    servers = []
    for l in listeners:
        servers.append(await asyncio.start_server(
            lambda r, w, l=l: handle(l, r, w), "127.0.0.1", l.port, backlog=1024, reuse_address=True))
    with open(config["readyFile"], "w") as f:
        f.write("ready\n")
    await asyncio.gather(stop.wait(), watch_parent(config["parentPid"], stop))
    for s in servers:
        s.close()
    stats = {l.name: {"connections": l.connections, "bytesDown": l.bytes_down, "bytesUp": l.bytes_up, "lostSegments": l.lost}
             for l in listeners}
    with open(config["statsFile"], "w") as f:
        json.dump(stats, f, sort_keys=True)

if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        asyncio.run(main(json.load(f)))
"""#
}
