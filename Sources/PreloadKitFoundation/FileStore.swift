import Foundation
import PreloadKit

/// What `FileStore.open` found and repaired when it reconciled the index with the directory.
public struct StoreReconciliation: Sendable, Equatable {
    /// Index entries kept (their file exists with the recorded size).
    public var keptEntries: Int = 0
    /// Index entries dropped, with why (file missing, size differs, invalid field, over capacity,
    /// stored in the future), sorted by key.
    public var droppedEntries: [DroppedEntry] = []
    /// Names of asset files deleted because no index entry refers to them, sorted.
    public var deletedOrphanFiles: [String] = []
    /// Names of leftover temporary files (`*.part`, index temporaries) deleted, sorted.
    public var deletedTemporaryFiles: [String] = []
    /// Why the index file could not be used at all (nil: it was read, or did not exist).
    public var unreadableIndex: String?

    /// An index entry `FileStore.open` dropped.
    public struct DroppedEntry: Sendable, Equatable {
        /// The entry's key text as found in the index (32 hex digits when valid).
        public var key: String
        public var reason: String
    }
}

/// The file-system side of the preload store: one directory holding `<StoreKey.fileName>` asset
/// files, the JSON index (`FileStore.indexFileName`) that persists the `PreloadStore` value, and the
/// driver's temporary download files (`*.part`).
///
/// Every path is `directory` + a name made by this type from a `StoreKey` or from driver-generated
/// numbers; no text from a payload ever reaches a path. Files are replaced atomically (write a
/// temporary file, `fsync`, `rename(2)`, `fsync` the directory), so a crash leaves either the old or
/// the new version. Order of writes: an asset file is renamed into place before the index names it,
/// and deleted before the index drops it; `open` repairs both crash windows (orphan files are
/// deleted, entries without a file are dropped).
///
/// Not thread-safe: the driver uses it from its actor only. One driver per directory at a time.
struct FileStore {
    /// The index file's name inside the store directory.
    static let indexFileName = "preload-index.json"
    /// Suffix of temporary download files.
    static let temporaryExtension = ".part"
    /// Index format version written and accepted.
    static let indexVersion = 1

    let directory: URL
    let capacityBytes: Int64
    let entriesMax: Int
    let indexBytesMax: Int
    /// How far in the future an entry's `storedAt`/`lastUsed` may lie at load (clock skew between
    /// processes) before it is dropped as written on another timeline.
    let futureToleranceMicroseconds: Int64
    /// Distinguishes this driver's temporary names (process id and clock anchor).
    let token: String
    /// The `ETag` texts of the entries' validators (persisted in the index).
    let validators = ValidatorTexts()

    init(directory: URL, capacityBytes: Int64, entriesMax: Int, indexBytesMax: Int, futureToleranceMicroseconds: Int64, token: String) {
        self.directory = directory.standardizedFileURL
        self.capacityBytes = capacityBytes
        self.entriesMax = entriesMax
        self.indexBytesMax = indexBytesMax
        self.futureToleranceMicroseconds = futureToleranceMicroseconds
        self.token = token
    }

    /// The file holding the asset with `key`.
    func fileURL(for key: StoreKey) -> URL {
        directory.appendingPathComponent(key.fileName, isDirectory: false)
    }

    /// The temporary download file for fetch `fetch` of session number `session`.
    func temporaryURL(session: UInt64, fetch: FetchID) -> URL {
        directory.appendingPathComponent("fetch-\(token)-\(session)-\(fetch.rawValue)\(Self.temporaryExtension)", isDirectory: false)
    }

    var indexURL: URL { directory.appendingPathComponent(Self.indexFileName, isDirectory: false) }

    // MARK: - Open and reconcile

    /// Creates the directory if needed, loads the index (`load`) and reconciles it with the files
    /// present: entries whose file is missing (or has another size, or is invalid, or dated in the
    /// future, or no longer fits the capacity) are dropped, asset files no entry names and
    /// temporary files are deleted, and the repaired index is written back. Files with other
    /// names are left alone.
    /// - Complexity: O(d log d + e²) for d directory entries and e index entries (e is bounded:
    ///   an index with more than `4 × entriesMax + 16` entries is treated as unreadable).
    func open(now: Instant) throws(PreloadDriverError) -> (PreloadStore, StoreReconciliation) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .storeDirectory(path: directory.path, reason: "cannot create: \(error.localizedDescription)")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            throw .storeDirectory(path: directory.path, reason: "cannot list: \(error.localizedDescription)")
        }
        let (store, loaded) = load(now: now)
        var report = loaded
        let indexChanged = report.unreadableIndex != nil || !report.droppedEntries.isEmpty

        for name in names {
            if name.hasSuffix(Self.temporaryExtension) || name.hasPrefix(Self.indexFileName + ".") {
                unlink(directory.appendingPathComponent(name).path)
                report.deletedTemporaryFiles.append(name)
            } else if name.hasSuffix(StoreKey.fileNameExtension) {
                let stem = name.dropLast(StoreKey.fileNameExtension.count)
                if let key = StoreKey(hex: stem), key.fileName == name, store.index(of: key) != nil { continue }
                // Not named by a kept entry (or not a canonical key name): an orphan.
                unlink(directory.appendingPathComponent(name).path)
                report.deletedOrphanFiles.append(name)
            }
        }
        if indexChanged, let problem = writeIndex(store) {
            throw .storeDirectory(path: indexURL.path, reason: "cannot write the reconciled index: \(problem)")
        }
        return (store, report)
    }

    /// Reads the index and keeps the entries whose file exists with the recorded size, that are
    /// consistent, not dated more than `futureToleranceMicroseconds` after `now`
    /// (`PreloadStore.dropEntriesFromTheFuture`) and fit the capacity (in index order). Changes
    /// nothing on disk, so it is safe while another process's driver uses the directory. The
    /// report's orphan and temporary lists stay empty.
    /// - Complexity: O(e²) for e index entries (bounded, see `readIndex`).
    func load(now: Instant) -> (PreloadStore, StoreReconciliation) {
        var report = StoreReconciliation()
        var records: [IndexRecord] = []
        switch readIndex() {
        case .success(let r): records = r
        case .failure(let reason): report.unreadableIndex = reason.description
        }
        // Every valid record first, without capacity limits, so an entry dropped as from the
        // future never crowds out a valid one.
        var candidates = PreloadStore(capacityBytes: .max, entriesMax: records.count)
        for record in records {
            switch entry(from: record) {
            case .failure(let reason):
                report.droppedEntries.append(.init(key: String(record.key.prefix(64)), reason: reason.description))
            case .success(let e):
                if candidates.index(of: e.key) != nil {
                    report.droppedEntries.append(.init(key: String(record.key.prefix(64)), reason: "duplicate key"))
                } else {
                    candidates.insert(e)
                }
            }
        }
        for e in candidates.dropEntriesFromTheFuture(now: now, toleranceMicroseconds: futureToleranceMicroseconds) {
            report.droppedEntries.append(.init(key: e.key.hex, reason: "stored at \(e.storedAt.microseconds) or used at \(e.lastUsed.microseconds), more than \(futureToleranceMicroseconds) us after now (\(now.microseconds)): written on another timeline (the wall clock was set back)"))
        }
        var store = PreloadStore(capacityBytes: capacityBytes, entriesMax: entriesMax)
        for e in candidates.entries where !store.insert(e) {
            report.droppedEntries.append(.init(key: e.key.hex, reason: "does not fit the store (capacity \(capacityBytes) bytes, \(entriesMax) entries)"))
        }
        report.keptEntries = store.entries.count
        report.droppedEntries.sort { $0.key < $1.key }
        return (store, report)
    }

    /// One `entries` element of the index file. Instants are microseconds on the driver clock
    /// (Unix-epoch based, see `DriverClock`); the manifest tag is 16 hex digits (JSON numbers lose
    /// 64-bit precision in many readers).
    struct IndexRecord: Codable {
        var key: String
        var bytes: Int64
        var storedAt: Int64
        var expiresAt: Int64
        var staleUntil: Int64
        var lastUsed: Int64
        var manifestTag: String
        var kind: String
        /// The response's `ETag` text, if it had one (absent in indexes written before validators).
        var etag: String? = nil
        /// End of stale-if-error (absent in older indexes: `staleUntil`).
        var errorUntil: Int64? = nil
    }

    struct IndexFile: Codable {
        var version: Int
        var entries: [IndexRecord]
    }

    func readIndex() -> Result<[IndexRecord], IndexProblem> {
        let path = indexURL.path
        let fd = Foundation.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            // No index yet: an empty store.
            if errno == ENOENT { return .success([]) }
            return .failure(IndexProblem("cannot open: \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(IndexProblem("cannot read: \(String(cString: strerror(errno)))"))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > indexBytesMax {
                return .failure(IndexProblem("larger than indexBytesMax (\(indexBytesMax) bytes)"))
            }
        }
        let file: IndexFile
        do {
            file = try JSONDecoder().decode(IndexFile.self, from: Data(bytes))
        } catch {
            return .failure(IndexProblem("not a valid index document: \(error)"))
        }
        if file.version != Self.indexVersion {
            return .failure(IndexProblem("version is \(file.version), expected \(Self.indexVersion)"))
        }
        if file.entries.count > entriesMax * 4 + 16 {
            return .failure(IndexProblem("holds \(file.entries.count) entries, far above entriesMax (\(entriesMax))"))
        }
        return .success(file.entries)
    }

    struct IndexProblem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A validated entry for `record` whose file exists with the recorded size.
    func entry(from r: IndexRecord) -> Result<PreloadStore.Entry, IndexProblem> {
        guard let key = StoreKey(hex: r.key) else { return .failure(IndexProblem("key is not 32 hex digits")) }
        guard let kind = MediaKind(rawValue: r.kind) else { return .failure(IndexProblem("kind \"\(r.kind.prefix(32))\" is not a media kind")) }
        guard r.manifestTag.utf8.count == 16, let tag = UInt64(r.manifestTag, radix: 16) else {
            return .failure(IndexProblem("manifestTag is not 16 hex digits"))
        }
        guard r.bytes >= 0, r.storedAt <= r.expiresAt, r.expiresAt <= r.staleUntil, r.storedAt <= r.lastUsed else {
            return .failure(IndexProblem("inconsistent sizes or instants (bytes >= 0, storedAt <= expiresAt <= staleUntil, storedAt <= lastUsed expected)"))
        }
        var info = stat()
        // lstat: a symbolic link planted under an asset name is not followed, and not kept.
        guard lstat(fileURL(for: key).path, &info) == 0 else { return .failure(IndexProblem("file missing")) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(IndexProblem("not a regular file")) }
        guard Int64(info.st_size) == r.bytes else {
            return .failure(IndexProblem("file is \(info.st_size) bytes, index says \(r.bytes)"))
        }
        return .success(PreloadStore.Entry(key: key, bytes: r.bytes, storedAt: Instant(microseconds: r.storedAt),
                                           expiresAt: Instant(microseconds: r.expiresAt), staleUntil: Instant(microseconds: r.staleUntil),
                                           lastUsed: Instant(microseconds: r.lastUsed), manifestTag: tag, kind: kind,
                                           etag: r.etag.flatMap { validators.record($0) },
                                           errorUntil: r.errorUntil.map { Instant(microseconds: $0) }))
    }

    // MARK: - Writes

    /// Writes `store` as the index, atomically. Returns a description of the failure, or nil.
    func writeIndex(_ store: PreloadStore) -> String? {
        let records = store.entries.map { e in
            IndexRecord(key: e.key.hex, bytes: e.bytes, storedAt: e.storedAt.microseconds, expiresAt: e.expiresAt.microseconds,
                        staleUntil: e.staleUntil.microseconds, lastUsed: e.lastUsed.microseconds,
                        manifestTag: Self.hex16(e.manifestTag), kind: e.kind.rawValue, etag: e.etag.flatMap { validators.text(for: $0) },
                        errorUntil: e.errorUntil == e.staleUntil ? nil : e.errorUntil.microseconds)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(IndexFile(version: Self.indexVersion, entries: records))
        } catch {
            return "cannot encode: \(error)"
        }
        let temporary = directory.appendingPathComponent("\(Self.indexFileName).\(token).tmp", isDirectory: false)
        return Self.writeAtomically(Array(data), temporary: temporary, destination: indexURL, directory: directory)
    }

    /// Moves a finished download into place as the file for `key` (replacing an older version) and
    /// makes the rename durable. Returns a description of the failure, or nil.
    func commit(temporary: URL, key: StoreKey) -> String? {
        if rename(temporary.path, fileURL(for: key).path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            return "rename failed: \(reason)"
        }
        Self.syncDirectory(directory)
        return nil
    }

    /// Deletes the temporary (empty) file of a revalidation answered 304 Not Modified: the stored
    /// file stays. Returns a description of the failure, or nil.
    func discard(_ temporary: URL) -> String? {
        if unlink(temporary.path) != 0 && errno != ENOENT { return "unlink failed: \(String(cString: strerror(errno)))" }
        return nil
    }

    /// Deletes the file for `key`; a file already gone is not an error. Returns a description of
    /// the failure, or nil.
    func delete(key: StoreKey) -> String? {
        if unlink(fileURL(for: key).path) != 0 && errno != ENOENT { return "unlink failed: \(String(cString: strerror(errno)))" }
        return nil
    }

    /// Writes `bytes` to `temporary`, `fsync`s it, renames it over `destination` and `fsync`s the
    /// directory. Returns a description of the failure, or nil.
    static func writeAtomically(_ bytes: [UInt8], temporary: URL, destination: URL, directory: URL) -> String? {
        let fd = Foundation.open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd < 0 { return "cannot create \(temporary.lastPathComponent): \(String(cString: strerror(errno)))" }
        if let problem = writeAll(fd, bytes[...]) {
            close(fd)
            unlink(temporary.path)
            return problem
        }
        let synced = fsync(fd) == 0
        let syncError = errno
        close(fd)
        if !synced {
            unlink(temporary.path)
            return "fsync failed: \(String(cString: strerror(syncError)))"
        }
        if rename(temporary.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            return "rename failed: \(reason)"
        }
        syncDirectory(directory)
        return nil
    }

    /// Writes every byte (retrying short writes and EINTR). Returns a description of the failure.
    static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> String? {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return "write failed: \(String(cString: strerror(errno)))"
            }
            offset += n
        }
        return nil
    }

    /// Makes renames and unlinks in `directory` durable (best effort).
    static func syncDirectory(_ directory: URL) {
        let fd = Foundation.open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
