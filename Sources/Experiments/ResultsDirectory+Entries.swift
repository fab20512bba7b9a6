import Foundation
import Glibc
import ScenarioFormat

extension ResultsDirectory {
    /// Whether `name` is the temporary file of an `AtomicWriter` write cut short (`.NAME.tmp-PID-N`).
    static func isCutShortWrite(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".tmp-")
    }

    /// Checks a subdirectory of results that holds one file per work item (a sweep's `items/`, a
    /// plan's `evaluations/`) before a command reads or resumes it: `url` must be a real directory
    /// (a symbolic link is refused, dangling or not: following it would read or write outside the
    /// results), and every entry a regular file, not a link, named as `isOwnName` accepts. The
    /// temporary files of writes cut short are removed when `removingCutShortWrites` (the caller
    /// owns the directory), skipped otherwise; any other entry (a hidden file, a link, a directory,
    /// a file the command does not write) is refused, never carried into the results or deleted.
    /// A missing `url` has no entries.
    /// - Returns: the own names, sorted.
    /// - Throws: `FileOutputError` naming the first few offending entries (sorted) and the fix.
    package static func checkItemEntries(_ url: URL, what: String, removingCutShortWrites: Bool,
                                 isOwnName: (String) -> Bool) throws(FileOutputError) -> [String] {
        var info = stat()
        guard lstat(url.path, &info) == 0 else {
            if Glibc.errno == ENOENT { return [] }
            throw .errno("inspect", url.path)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            let kind = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a directory"
            throw FileOutputError(operation: "read \(what) in", path: url.path,
                                  reason: "it is \(kind); prestage writes a real directory here and never follows a link out of the results; remove it by hand or choose another output directory")
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() } catch {
            throw FileOutputError(operation: "list", path: url.path, reason: "\(error)")
        }
        var own: [String] = [], refused: [String] = []
        for name in names {
            let path = url.appendingPathComponent(name).path
            var entry = stat()
            let isFile = lstat(path, &entry) == 0 && entry.st_mode & S_IFMT == S_IFREG
            if isFile, isCutShortWrite(name) {
                if removingCutShortWrites { unlink(path) }
            } else if isFile, !name.hasPrefix("."), isOwnName(name) {
                own.append(name)
            } else {
                refused.append(name)
            }
        }
        guard let first = refused.first else { return own }
        let others = refused.dropFirst().prefix(4).map { DisplayText.quoted($0) }.joined(separator: ", ")
        let more = refused.count > 5 ? " and \(refused.count - 5) more" : ""
        throw FileOutputError(operation: "use it as one of \(what)", path: url.appendingPathComponent(DisplayText.bounded(first)).path,
                              reason: "prestage does not write it there (only regular files named as \(what); no hidden files, links or directories)"
                                + (others.isEmpty ? "" : "; nor \(others)\(more) beside it") + "; remove it and rerun")
    }
}
