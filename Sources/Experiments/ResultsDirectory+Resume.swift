import Foundation
import ScenarioFormat

extension ResultsDirectory {
    /// The results directory `lock` protects, reusing its `NAME.partial` as it is (the caller holds
    /// the lock, so the run that wrote it is gone) when it holds this tool's marker, so that work
    /// already written there is reused: a resumable job (a sweep's per-item files) continues where
    /// an interrupted run stopped. The marker is rewritten naming the new owner. Nil if there is no
    /// such partial directory; `begin(_:)` then starts afresh.
    /// - Throws: `FileOutputError` for a `NAME.partial` that is not this tool's, or a failed write.
    package static func resume(_ lock: OutputLock) throws(FileOutputError) -> ResultsDirectory? {
        do throws(FileOutputError) {
            try refuseLinkedResults(lock)
            let directory = ResultsDirectory(lock: lock)
            guard try directory.partialIsOurs(ownFiles: []),
                  isOurMarker(directory.partialURL.appendingPathComponent(incompleteMarkerName)) else { return nil }
            try directory.markIncomplete(reason: nil)
            return directory
        } catch {
            // A refusal leaves no lock file beside the user's directory (see `begin(_:ownFiles:)`).
            lock.removeAndRelease()
            throw error
        }
    }
}
