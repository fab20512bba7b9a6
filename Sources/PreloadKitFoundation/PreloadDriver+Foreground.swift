import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PreloadKit

extension PreloadDriver {
    /// Keeps a critical asset the app fetched in the foreground after a tap (the screen found it
    /// missing, `paintSet`), so a later push naming the same URL paints from the store. Whether
    /// and how it is kept is PreloadKit's `PreloadStore.admitForeground` (the checks a pre-staged
    /// response passes: status, length, MIME type and magic bytes, `Cache-Control` within the
    /// manifest TTL, the store limit, LRU eviction); this writes what it decided: the evicted
    /// entries' files deleted, the asset's file written atomically, then the index.
    ///
    /// Call it from the app process while no `PreloadDriver` session runs on this store directory
    /// (a running session holds the store and would overwrite the index with its own copy).
    /// - Parameters:
    ///   - body: the response body as received.
    ///   - response: the response (its status, `Cache-Control`, `Content-Type`, `Content-Length`;
    ///     its `url`: a response whose URL is not the asset's came through a redirect, e.g. a
    ///     CDN's 302 to a placeholder, and is not kept, `.rejected(.redirected)`).
    ///   - asset: the payload's asset fetched, resolved for `network` (the URL the app fetched).
    ///   - request: the push's request (`PayloadParser.parse` of its JSON).
    ///   - freeStorageBytes: the volume's free space now (the policy's floor is kept free).
    /// - Returns: PreloadKit's decision; `.rejected` leaves the directory untouched.
    /// - Throws: `.invalidPolicy` / `.invalidConfiguration`, or `.storeDirectory` when a file
    ///   cannot be written.
    public static func keepForeground(body: Data, response: URLResponse, asset: AssetSpec, network: NetworkClass, request: PreStageRequest,
                                      freeStorageBytes: Int64,
                                      configuration: PreloadDriverConfiguration) throws(PreloadDriverError) -> ForegroundAdmission {
        try configuration.validate()
        let now = DriverClock().now()
        let files = fileStore(configuration, token: "foreground-\(getpid())")
        var (store, _) = files.load(now: now)
        let (url, key, _) = asset.resolved(for: network)
        // URLSession follows redirects for the app: the final URL tells (a relative or equivalent
        // spelling of the same URL is not a redirect, so compare what URL makes of both).
        let redirected = response.url.map { $0.absoluteString != URL(string: url.absoluteString)?.absoluteString } ?? false
        let completion = FetchCompletion(headers: FetchTransport.headers(of: response), bytesReceived: Int64(body.count),
                                         prefix: [UInt8](body.prefix(FetchTransport.prefixBytesMax)))
        var evicted: [StoreKey] = []
        let admission = store.admitForeground(completion, key: key, type: asset.type, request: request, policy: configuration.policy,
                                              freeStorageBytes: freeStorageBytes, now: now, redirected: redirected, evicted: &evicted)
        guard case .stored = admission else { return admission }
        do {
            try FileManager.default.createDirectory(at: files.directory, withIntermediateDirectories: true)
        } catch {
            throw .storeDirectory(path: files.directory.path, reason: "cannot create: \(error.localizedDescription)")
        }
        for victim in evicted {
            if let problem = files.delete(key: victim) { throw .storeDirectory(path: files.fileURL(for: victim).path, reason: problem) }
        }
        let temporary = files.directory.appendingPathComponent("foreground-\(files.token)-\(key.hex)\(FileStore.temporaryExtension)")
        if let problem = FileStore.writeAtomically([UInt8](body), temporary: temporary, destination: files.fileURL(for: key),
                                                   directory: files.directory) {
            throw .storeDirectory(path: files.fileURL(for: key).path, reason: problem)
        }
        if let problem = files.writeIndex(store) { throw .storeDirectory(path: files.indexURL.path, reason: problem) }
        return admission
    }
}
