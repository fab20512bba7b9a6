/// # PreloadKit
///
/// The client side of push-notification asset pre-staging, written sans-I/O: no network, no
/// files, no clock, no randomness, no dependencies. The same code runs inside an iOS Notification
/// Service Extension or an Android FCM handler (driven by `PreloadKitFoundation`'s URLSession
/// driver) and inside the Prestage simulator (driven in virtual time for millions of devices).
///
/// ## Parse once
/// `PayloadParser.parse(json:options:)` (or `parse(_:options:)` over a `PayloadValue`, built from
/// `userInfo` with `PayloadValue(any:)`) turns any of the four payload formats (inline
/// `cdn_preload` manifest, manifest by reference, silent `pre_stage_url` push, rich `au`/`at`
/// push) into one validated `PreStageRequest`: https URLs on the CDN allowlist only, store keys
/// derived from URLs (never from payload ids), declared sizes capped, HMAC-SHA256 signature over a
/// documented canonical form verified. It is a pure function: the simulator parses a campaign's
/// payload once and shares the value among all devices.
///
/// Replay: a signed `exp` (and `campaign_id`) bounds how long a captured push can be replayed.
/// A device parses with `parse(json:options:now:)`; a request parsed once and shared is checked
/// per delivery with `PayloadParser.checkExpiry(of:now:options:)` (see `PayloadParser`,
/// "Replay protection", and `PayloadOptions.expiryRequirement`).
///
/// ## Drive a session per push
/// ```swift
/// var session = try PreloadSession(policy: policy, store: deviceStore)
/// try session.handle(.pushReceived(request, context), now: clock.now)
/// drain()                                    // while let a = session.pollAction() { perform(a) }
/// // whenever something happens:
/// try session.handle(.fetchCompleted(id, completion), now: clock.now); drain()
/// // after every handle+drain: arm ONE timer at session.nextDeadline() (nil = none);
/// // when it fires: try session.handle(.timerFired, now: clock.now); drain()
/// // iOS serviceExtensionTimeWillExpire: try session.handle(.expiryWarning, now:); drain()
/// // a .storeAsset whose file could not be moved: try session.handle(.storeFailed(id), now:); drain()
/// // when session.isFinished: keep session.store as the device's store
/// // (a simulator reuses one value: session.reset(store: nextDevicesStore)).
/// ```
/// Rules: `now` never decreases; drain every action before the next `handle`; every
/// `.startFetch` is answered by the driver with `.fetchCompleted` or `.fetchFailed` (optionally
/// preceded by `.fetchHeaders` / `.fetchProgress`) unless the session cancels it first; reports
/// arriving after a `.cancelFetch` are ignored. Performing actions: `.startFetch` (stream assets
/// to a temp file through `bufferBytes`, buffer manifests in memory, stop at `byteLimit`),
/// `.cancelFetch` (stop and delete the partial file), `.storeAsset` (move the temp file to
/// `entry.key.fileName`; on failure feed `.storeFailed(fetchID)` after the drain, so the
/// session's store never counts an asset the disk lacks), `.evict` (delete the file; its
/// `EvictionReason` says whether LRU made room or the entry had expired), `.deliver` (call the
/// content handler exactly this once, with the attachment if any), `.tapAnswer` / `.paintReady`
/// (tell the UI), `.scheduleReceipt` (send at `sendAt`), `.enqueueFallback` (Android: enqueue
/// expedited WorkManager work that runs the push again as a job), `.log`.
///
/// ## Timeouts: the session owns them all
/// The one timer a driver arms is at `nextDeadline()`, which covers the hard deadline and every
/// running fetch's request timeout; `.timerFired` there cancels the late fetches
/// (`.cancelFetch(id, .timedOut)`). A driver arms no per-fetch timer: `FetchRequest
/// .timeoutMicroseconds` is advisory, for a transport-level backstop set well past it (e.g. plus
/// 30 s), whose expiry is reported as `.fetchFailed(id, .timedOut)`. The outcome is deterministic:
/// every input first applies the timeouts due at its `now`, so a report at or after its fetch's
/// timeout finds the fetch cancelled and is logged as `lateInputIgnored`, whichever of the timer
/// and the report is fed first.
///
/// ## Transfers: what a driver must and must not do
/// - Fetch exactly the URL given and never follow a redirect: the redirect's target was not
///   checked against the allowlist (nor is its store key the URL's). Report the 3xx response as
///   received; the session refuses its status.
/// - An app's own foreground loader does follow redirects (a CDN's 302 to a placeholder for
///   Save-Data or slow links): pass `redirected: true` to `PreloadStore.admitForeground` when
///   the final URL is not the asset's, and PreloadKit keeps nothing (`.redirected`), so a
///   placeholder never paints as if it were the pre-staged asset.
/// - Report a truncated body (the connection closed before `Content-Length` bytes) as
///   `.fetchCompleted` with the bytes actually received, not as `.fetchFailed`: the session then
///   refuses it as `lengthMismatch`, and never stores a partial asset.
/// - Do not decompress behind the session's back (`Accept-Encoding: identity`), so
///   `Content-Length` counts the body bytes reported.
///
/// ## Taps without a session
/// `PreloadStore.tapAnswer(for:context:policy:now:)` answers a tap from the store alone (the app
/// process after the extension has ended), with the same selection as the session.
///
/// ## Which pushes to pre-stage
/// `PreloadPolicy.decision` chooses, after the gates: `criticalOnly` (the default), `never`,
/// `threshold(openProbabilityMin:)` on the push's signed `open_pct` hint
/// (`PreStageRequest.openProbabilityHint`), or `budgeted` (`BudgetedPolicy`: hint × latency saved
/// against weighted data and energy cost, the weights adapted to spend daily budgets by a goal
/// time). Pass the OS's battery, charging, Low Power Mode and cellular-use readings in
/// `DeviceContext.inputs` and the persisted `PrestageLedger` in `DeviceContext.ledger`; persist
/// `PreloadSession.ledger` after the push. The rules are `PrestageDecision.decide`'s table.
///
/// ## Persistent stores
/// Instants in a persisted store must share one timeline across processes and reboots (see
/// `Instant`); validate a loaded store with `PreloadStore.dropEntriesFromTheFuture`.
///
/// ## What it guarantees
/// Delivery exactly once and never later than the handler kind's hard deadline (fail open);
/// per-request timeout `min(policy timeout, time left)`; only `critical` assets (knob
/// `eligiblePriority`), most urgent first, at most `criticalAssetsMax`, gated by network class, Low Data Mode, Save-Data, metered byte cap and
/// storage; a concurrency limit that fits the memory budget; HTTP caching honoured (fresh used,
/// stale-while-revalidate used and revalidated in the background, otherwise refetched); two-layer
/// size caps; media accepted only when MIME type and magic bytes agree with the declared type; a
/// byte-capacity LRU store with TTL and purge by campaign (`PreloadStore`).
///
/// Where this module and InfraModel are both imported, qualify the names they share:
/// `PreloadKit.NetworkClass`, `PreloadKit.FetchRequest` (no type is named `PreloadKit`, so the
/// module name always qualifies).
public enum PreloadKitInfo {
    /// Version tag of the canonical signing form: signatures are `v1=<hex>` and the canonical
    /// form's first line is `v1`.
    public static let signatureVersion = "v1"
}
