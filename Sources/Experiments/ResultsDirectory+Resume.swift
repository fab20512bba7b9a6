import Foundation
import ScenarioFormat

extension ResultsDirectory {
    /// The results directory `NAME` in `parent` whose `NAME.partial` (holding the `INCOMPLETE`
    /// marker) is kept as it is, so that work already written there is reused: a resumable job
    /// (a sweep's per-item files) continues where an interrupted run stopped. Nil if there is no
    /// such partial directory; `begin(in:name:)` then starts afresh.
    /// - Throws: `FileOutputError` for an invalid name.
    public static func resume(in parent: URL, name: String) throws(FileOutputError) -> ResultsDirectory? {
        guard !name.isEmpty, name.utf8.count <= nameLimitBytes, !name.contains("/"), !name.hasPrefix("."), !name.contains("\0") else {
            throw FileOutputError(operation: "use name \(JSONValue.quoted(name))", path: parent.path,
                                  reason: "expected a plain file name of 1...\(nameLimitBytes) bytes without '/', not starting with '.'")
        }
        let partial = parent.appendingPathComponent(name + ".partial", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: partial.path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.fileExists(atPath: partial.appendingPathComponent(incompleteMarkerName).path) else { return nil }
        return ResultsDirectory(finalURL: parent.appendingPathComponent(name, isDirectory: true), partialURL: partial)
    }
}
