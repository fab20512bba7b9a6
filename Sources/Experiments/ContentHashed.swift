import enum PreloadKit.SHA256
import ScenarioFormat

/// A stored result file that carries the hash of its own contents (`contentHash`: "sha256:…" of its
/// canonical JSON with that field empty), so an edited, damaged or relabelled copy is recognised
/// when it is read back (a sweep's items, a plan's evaluations).
protocol ContentHashed: Encodable {
    var contentHash: String { get set }
}

extension ContentHashed {
    /// The hash `contentHash` must hold.
    /// - Throws: an encoding error (not for the values these types hold).
    func computedHash() throws -> String {
        var copy = self
        copy.contentHash = ""
        return "sha256:" + hexString(SHA256.hash(try CanonicalJSON.encode(copy, pretty: false)))
    }

    /// Sets `contentHash` to the hash of the rest (the last step of an initializer).
    mutating func seal() {
        contentHash = ""
        contentHash = (try? computedHash()) ?? ""
    }
}
