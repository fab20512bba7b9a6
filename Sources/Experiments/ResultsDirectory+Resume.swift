import Foundation
import ScenarioFormat

extension ResultsDirectory {
    /// The results directory `NAME` in `parent` whose `NAME.partial` (holding the `INCOMPLETE`
    /// marker) is kept as it is, so that work already written there is reused: a resumable job
    /// (a sweep's per-item files) continues where an interrupted run stopped. Nil if there is no
    /// such partial directory; `begin(in:name:)` then starts afresh.
    /// - Throws: `FileOutputError` for an invalid name.
    public static func resume(in parent: URL, name: String) throws(FileOutputError) -> ResultsDirectory? {
        try validate(name: name, in: parent.path)
        let partial = parent.appendingPathComponent(name + ".partial", isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: partial.path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.fileExists(atPath: partial.appendingPathComponent(incompleteMarkerName).path) else { return nil }
        return ResultsDirectory(finalURL: parent.appendingPathComponent(name, isDirectory: true), partialURL: partial)
    }
}
