import Foundation

/// The source revision of the checkout this tool was built from, for `--version` and report headers
/// (never in results, which must not change between commits).
///
/// Read at run time from the git metadata next to the sources (the compile-time path of this file):
/// `HEAD`, then the branch ref (loose or packed; worktrees included). No git process is started.
/// Nil when the sources are not a git checkout any more (e.g. an installed binary).
package enum SourceRevision {
    /// Hex digits shown.
    static let digits = 12

    /// The abbreviated commit of the checkout, e.g. "3f2a9c01b7de"; nil when unknown.
    package static let current: String? = resolve(startingAt: URL(fileURLWithPath: #filePath).deletingLastPathComponent())

    /// Walks up from `directory` to the first `.git` (a directory, or a worktree's `gitdir:` file) and
    /// resolves its HEAD.
    static func resolve(startingAt directory: URL) -> String? {
        var current = directory.standardizedFileURL
        for _ in 0..<16 {
            let dotGit = current.appendingPathComponent(".git")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) {
                let gitDirectory: URL
                if isDirectory.boolValue {
                    gitDirectory = dotGit
                } else {
                    guard let text = read(dotGit), text.hasPrefix("gitdir:") else { return nil }
                    let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                    gitDirectory = URL(fileURLWithPath: path, relativeTo: current).standardizedFileURL
                }
                return head(gitDirectory)
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
        return nil
    }

    static func head(_ gitDirectory: URL) -> String? {
        guard let head = read(gitDirectory.appendingPathComponent("HEAD"))?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        guard head.hasPrefix("ref:") else { return abbreviated(head) }
        let ref = head.dropFirst("ref:".count).trimmingCharacters(in: .whitespaces)
        // A worktree keeps HEAD in its own directory and the refs in the common one.
        var common = gitDirectory
        if let relative = read(gitDirectory.appendingPathComponent("commondir"))?.trimmingCharacters(in: .whitespacesAndNewlines) {
            common = URL(fileURLWithPath: relative, relativeTo: gitDirectory.appendingPathComponent("x")).standardizedFileURL
        }
        for directory in [gitDirectory, common] {
            if let commit = read(directory.appendingPathComponent(ref))?.trimmingCharacters(in: .whitespacesAndNewlines) {
                return abbreviated(commit)
            }
        }
        guard let packed = read(common.appendingPathComponent("packed-refs")) else { return nil }
        for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
            return abbreviated(String(line.prefix { $0 != " " }))
        }
        return nil
    }

    static func abbreviated(_ commit: String) -> String? {
        guard commit.count >= digits, commit.allSatisfy({ $0.isHexDigit }) else { return nil }
        return String(commit.prefix(digits))
    }

    static func read(_ url: URL) -> String? {
        guard let data = try? Data(contentsOf: url), data.count < 1 << 20 else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
