import Foundation
import Glibc

extension ResultsDirectory {
    /// Opens a results directory that stores one checked file per replication in `evaluations/`
    /// (plans and sensitivity studies): claims `NAME` in `parent` for `owner` (refusing, before any
    /// work, anything `replacing` does not describe), resumes this tool's `DIR.partial` or starts
    /// one, and copies the earlier results' `DIR/evaluations/` into it, so a rerun reuses every
    /// replication already run. An `evaluations/` that is a link or holds anything but evaluation
    /// files is refused; temporary files of writes cut short in the partial directory are removed.
    /// A refusal leaves no lock file.
    /// - Returns: the partial directory and how many replications were carried over.
    static func openCarryingEvaluations(in parent: URL, name: String, owner: OutputOwner, replacing: Replaceable, ownFiles: Set<String>,
                                        what: String) throws(FileOutputError) -> (directory: ResultsDirectory, carried: Int) {
        let evaluationsName = PlanResults.evaluationsDirectory
        let lock = try claim(in: parent, name: name, owner: owner, replacing: replacing)
        do throws(FileOutputError) {
            let earlier = parent.appendingPathComponent(name, isDirectory: true).appendingPathComponent(evaluationsName, isDirectory: true)
            let carriedNames = try checkItemEntries(earlier, what: what, removingCutShortWrites: false, isOwnName: PlanReplicationFile.isFileName)
            let directory: ResultsDirectory
            if let resumed = try resume(lock) { directory = resumed } else { directory = try begin(lock, ownFiles: ownFiles) }
            let evaluations = directory.partialURL.appendingPathComponent(evaluationsName, isDirectory: true)
            let present = Set(try checkItemEntries(evaluations, what: what, removingCutShortWrites: true, isOwnName: PlanReplicationFile.isFileName))
            if present.isEmpty, mkdir(evaluations.path, 0o755) != 0, Glibc.errno != EEXIST { throw .errno("create directory", evaluations.path) }
            var carried = 0
            for name in carriedNames where !present.contains(name) {
                let source = earlier.appendingPathComponent(name)
                guard let data = FileManager.default.contents(atPath: source.path) else { throw .errno("read", source.path) }
                try AtomicWriter.write(data, to: evaluations.appendingPathComponent(name))
                carried += 1
            }
            return (directory, carried)
        } catch {
            lock.removeAndRelease()
            throw error
        }
    }
}
