import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PreloadKit

/// Identifies a transfer across sessions: fetch ids restart at 1 with every session.
struct TransferID: Hashable, Sendable {
    let session: UInt64
    let fetch: FetchID
}

/// What a transfer reports, in the order it happened. The driver turns these into PreloadKit
/// inputs; exactly one `completed` or `failed` ends every transfer that is not cancelled.
enum TransferEvent: Sendable {
    case headers(FetchHeaders)
    case progress(Int64)
    case completed(FetchCompletion)
    /// The failure, and a driver note when the cause was local (file write), not the network.
    case failed(FetchFailure, DriverNote?)
}

/// The URLSession side of the driver: starts `FetchRequest`s, streams asset bodies to their
/// temporary file through a `bufferBytes` buffer (manifests are kept in memory), stops reading
/// beyond `byteLimit`, and reports headers, progress, completion and failure through `sink`, in
/// order (the delegate queue is serial).
///
/// It makes no decision of PreloadKit's: it does not judge status, type, length or magic bytes; it
/// only cuts a stream at the byte limit it was given (and reports the count, so the session
/// rejects it) and refuses HTTP redirects, because a redirect would fetch a URL PreloadKit never
/// checked against the allowlist (the 3xx response itself is reported, and the session refuses its
/// status). URLSession's own cache and cookies are off (PreloadKit is the cache), and
/// `Accept-Encoding: identity` keeps `Content-Length` equal to the body bytes counted. A fetch of
/// a sub-range (`FetchRequest.range`) sends `Range` and reports `Content-Range`; the 206's body
/// is the range's bytes, written to the temporary file like any body.
///
/// Thread safety: all mutable state is behind `lock`; delegate callbacks run on a serial queue.
final class FetchTransport: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Bytes of each body kept for magic-byte sniffing (PreloadKit looks at most at 64).
    static let prefixBytesMax = 64

    private struct Transfer {
        let id: TransferID
        let task: URLSessionDataTask
        let isManifest: Bool
        let byteLimit: Int64
        let bufferBytes: Int
        /// Open temporary file (assets), or -1.
        var fd: Int32
        let temporary: URL?
        var headers: FetchHeaders?
        var received: Int64 = 0
        var prefix: [UInt8] = []
        /// Manifest body, or asset bytes not yet written.
        var buffer: [UInt8] = []
        /// The body went past `byteLimit`: reading stopped and the task was cancelled.
        var cut = false
        /// An asset whose body the session reads (`FetchRequest.returnsBody`, an HLS playlist):
        /// besides the file, the whole body (at most `byteLimit` bytes) is kept in `kept`.
        let keepsBody: Bool
        var kept: [UInt8] = []
    }

    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]
    private var taskByID: [TransferID: Int] = [:]
    private var urlSession: URLSession?
    private let sink: @Sendable (TransferID, TransferEvent) -> Void
    /// `ETag` texts: recorded from responses, sent back as `If-None-Match`.
    let validators: ValidatorTexts

    init(validators: ValidatorTexts = ValidatorTexts(), sink: @escaping @Sendable (TransferID, TransferEvent) -> Void) {
        self.validators = validators
        self.sink = sink
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "PreloadKitFoundation.FetchTransport"
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        urlSession = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Starts `request`; an asset body goes to `temporary` (created here, exclusively). Returns why
    /// it could not start (the caller reports the fetch failed), or nil.
    func start(_ id: TransferID, _ request: FetchRequest, temporary: URL?) -> String? {
        guard let url = URL(string: request.url.absoluteString) else { return "Foundation cannot represent the URL" }
        var fd: Int32 = -1
        if let temporary {
            fd = Foundation.open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 { return "cannot create \(temporary.lastPathComponent): \(String(cString: strerror(errno)))" }
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        urlRequest.httpMethod = "GET"
        urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        // A revalidation of an entry with a validator: the server may answer 304 without a body,
        // which is reported like any completion (status 304, no body bytes).
        if let tag = request.ifNoneMatch, let text = validators.text(for: tag) {
            urlRequest.setValue(text, forHTTPHeaderField: "If-None-Match")
        }
        // A sub-range (an HLS byte-range part): the session accepts only the 206 naming it, and
        // refuses a 200 (the whole file) at its headers, which cancels the task before the body.
        if let range = request.range {
            urlRequest.setValue(range.headerValue, forHTTPHeaderField: "Range")
        }
        // The session owns the request timeout (its `.cancelFetch(.timedOut)` stops the task);
        // URLSession's timeout is an idle timeout, rounded to whole seconds on Linux, so it is only
        // a backstop well after it (PreloadKit's timeout rule).
        urlRequest.timeoutInterval = Double(request.timeoutMicroseconds) / 1_000_000 + 30

        lock.lock()
        guard let session = urlSession else {
            lock.unlock()
            if fd >= 0 { close(fd) }
            if let temporary { unlink(temporary.path) }
            return "the transport was shut down"
        }
        let task = session.dataTask(with: urlRequest)
        let isManifest: Bool
        if case .manifest = request.purpose { isManifest = true } else { isManifest = false }
        let bufferBytes = Int(clamping: max(1, min(request.bufferBytes, 64 * 1_048_576)))
        transfers[task.taskIdentifier] = Transfer(id: id, task: task, isManifest: isManifest, byteLimit: request.byteLimit,
                                                  bufferBytes: bufferBytes, fd: fd, temporary: temporary,
                                                  keepsBody: request.returnsBody && !isManifest)
        taskByID[id] = task.taskIdentifier
        lock.unlock()
        task.resume()
        return nil
    }

    /// Stops a transfer if it is still running and deletes its temporary file. Nothing more is
    /// reported for it. Harmless for unknown or finished transfers.
    func cancel(_ id: TransferID) {
        lock.lock()
        guard let taskID = taskByID.removeValue(forKey: id), let t = transfers.removeValue(forKey: taskID) else {
            lock.unlock()
            return
        }
        lock.unlock()
        discard(t)
    }

    /// Cancels everything and invalidates the URLSession (which otherwise keeps its delegate alive).
    func shutdown() {
        lock.lock()
        let all = transfers.values
        transfers.removeAll()
        taskByID.removeAll()
        let session = urlSession
        urlSession = nil
        lock.unlock()
        for t in all { discard(t) }
        session?.invalidateAndCancel()
    }

    private func discard(_ t: Transfer) {
        t.task.cancel()
        if t.fd >= 0 { close(t.fd) }
        if let temporary = t.temporary { unlink(temporary.path) }
    }

    // MARK: - URLSessionDataDelegate (serial delegate queue)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let headers = Self.headers(of: response, recording: validators)
        lock.lock()
        if var t = transfers[dataTask.taskIdentifier] {
            t.headers = headers
            transfers[dataTask.taskIdentifier] = t
            sink(t.id, .headers(headers))
        }
        lock.unlock()
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        defer { lock.unlock() }
        guard var t = transfers[dataTask.taskIdentifier], !t.cut else { return }
        if t.prefix.count < Self.prefixBytesMax {
            t.prefix.append(contentsOf: data.prefix(Self.prefixBytesMax - t.prefix.count))
        }
        let (total, overflow) = t.received.addingReportingOverflow(Int64(data.count))
        t.received = overflow ? .max : total
        if t.received > t.byteLimit {
            // Stop reading: nothing past the limit is written or kept. The completion reports the
            // count, so the session refuses the response (it usually cancels on the progress first).
            t.cut = true
            t.buffer = []
            transfers[dataTask.taskIdentifier] = t
            dataTask.cancel()
            sink(t.id, .progress(t.received))
            return
        }
        t.buffer.append(contentsOf: data)
        if t.keepsBody { t.kept.append(contentsOf: data) }
        if !t.isManifest && t.buffer.count >= t.bufferBytes {
            if let problem = FileStore.writeAll(t.fd, t.buffer[...]) {
                transfers.removeValue(forKey: dataTask.taskIdentifier)
                taskByID.removeValue(forKey: t.id)
                discard(t)
                sink(t.id, .failed(.other, .downloadWriteFailed(t.id.fetch, problem)))
                return
            }
            t.buffer.removeAll(keepingCapacity: true)
        }
        transfers[dataTask.taskIdentifier] = t
        sink(t.id, .progress(t.received))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        defer { lock.unlock() }
        guard let t = transfers.removeValue(forKey: task.taskIdentifier) else { return }
        taskByID.removeValue(forKey: t.id)
        let headers = t.headers ?? FetchHeaders(status: 0)
        let body: FetchBody = t.isManifest ? .bytes(t.buffer) : t.keepsBody ? .bytes(t.kept) : .none
        if t.cut {
            if t.fd >= 0 { close(t.fd) }
            sink(t.id, .completed(FetchCompletion(headers: headers, bytesReceived: t.received, prefix: t.prefix, body: body)))
            return
        }
        if let error, let length = headers.contentLength, t.received < length, Self.isConnectionClosedEarly(error) {
            // The server closed before sending Content-Length bytes: report the short body as it
            // is, so the session refuses it for the length mismatch (PreloadKit's rule for
            // truncated transfers) rather than as an anonymous network error.
            if t.fd >= 0 { close(t.fd) }
            sink(t.id, .completed(FetchCompletion(headers: headers, bytesReceived: t.received, prefix: t.prefix, body: body)))
            return
        }
        if let error {
            discard(t)
            sink(t.id, .failed(Self.failure(of: error), .transferFailed(t.id.fetch, Self.describe(error))))
            return
        }
        if t.fd >= 0 {
            var problem = t.buffer.isEmpty ? nil : FileStore.writeAll(t.fd, t.buffer[...])
            if problem == nil && fsync(t.fd) != 0 { problem = "fsync failed: \(String(cString: strerror(errno)))" }
            close(t.fd)
            if let problem {
                if let temporary = t.temporary { unlink(temporary.path) }
                sink(t.id, .failed(.other, .downloadWriteFailed(t.id.fetch, problem)))
                return
            }
        }
        sink(t.id, .completed(FetchCompletion(headers: headers, bytesReceived: t.received, prefix: t.prefix, body: body)))
    }

    // MARK: - Mapping

    /// Status, Cache-Control, Content-Type, Content-Length, ETag and Content-Range as received
    /// (non-HTTP: status 0); the ETag's text goes to `validators` (without them, or when it is not
    /// kept, the headers carry no tag); Content-Range is parsed by PreloadKit (`ContentRange.parse`).
    static func headers(of response: URLResponse, recording validators: ValidatorTexts? = nil) -> FetchHeaders {
        guard let http = response as? HTTPURLResponse else { return FetchHeaders(status: 0) }
        var cacheControl: String?
        var contentType: String?
        var contentLength: Int64?
        var etag: EntityTag?
        var contentRange: ContentRange?
        for (name, value) in http.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            // Header names are ASCII tokens, compared ignoring ASCII case only: `lowercased()` maps
            // non-ASCII letters too (U+212A KELVIN SIGN becomes "k") and `==` equates canonically
            // equivalent spellings, so a look-alike name could pass for a real one.
            if nameIs(name, "cache-control") {
                cacheControl = value
            } else if nameIs(name, "content-type") {
                contentType = value
            } else if nameIs(name, "content-range") {
                contentRange = ContentRange.parse(value)
            } else if nameIs(name, "etag") {
                etag = validators?.record(value.trimmingCharacters(in: .whitespaces))
            } else if nameIs(name, "content-length") {
                let digits = value.trimmingCharacters(in: .whitespaces)
                if !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { contentLength = Int64(digits) }
            }
        }
        return FetchHeaders(status: http.statusCode, cacheControl: cacheControl, contentType: contentType, contentLength: contentLength,
                            etag: etag, contentRange: contentRange)
    }

    /// True when `name`'s UTF-8 bytes equal the lowercase ASCII `expected`, ignoring ASCII case.
    static func nameIs(_ name: String, _ expected: StaticString) -> Bool {
        let count = expected.utf8CodeUnitCount
        guard name.utf8.count == count else { return false }
        let p = expected.utf8Start
        for (i, byte) in name.utf8.enumerated() where (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) != p[i] {
            return false
        }
        return true
    }

    /// True for errors that mean "the connection ended", as libcurl reports a body shorter than its
    /// Content-Length (NSURLErrorUnknown "transfer closed with N bytes remaining") or a lost
    /// connection.
    static func isConnectionClosedEarly(_ error: Error) -> Bool {
        let ns = error as NSError
        return ns.domain == NSURLErrorDomain && (ns.code == NSURLErrorUnknown || ns.code == NSURLErrorNetworkConnectionLost)
    }

    /// `domain code: description` of a transport error, for the notes.
    static func describe(_ error: Error) -> String {
        let ns = error as NSError
        return "\(ns.domain) \(ns.code): \(ns.localizedDescription)"
    }

    /// The PreloadKit failure class of a URLSession error.
    static func failure(of error: Error) -> FetchFailure {
        let ns = error as NSError
        guard ns.domain == NSURLErrorDomain else { return .other }
        switch URLError.Code(rawValue: ns.code) {
        case .timedOut:
            return .timedOut
        case .cancelled:
            return .cancelledBySystem
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            return .tls
        case .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost, .dnsLookupFailed,
             .internationalRoamingOff, .dataNotAllowed, .callIsActive, .cannotLoadFromNetwork, .badServerResponse,
             .resourceUnavailable, .zeroByteResource, .cannotParseResponse:
            return .network
        default:
            return .other
        }
    }
}
