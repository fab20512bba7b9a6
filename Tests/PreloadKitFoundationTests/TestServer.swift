import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// One request the fixture server saw.
struct LoggedRequest: Decodable, Equatable {
    let method: String
    let path: String
    let bodyBytes: Int
    let sha256: String
    /// The request's `Range` header, if it sent one.
    var range: String? = nil
}

/// The loopback HTTP server of `Fixtures/preload_server.py`, started with `Process` on an
/// ephemeral port (read from its first stdout line) and killed by `stop()`. The script exits by
/// itself after `lifetimeSeconds` and serves at most `maxRequests`, so a crashed test cannot leave
/// it running for long.
final class TestServer: @unchecked Sendable {
    let process = Process()
    let port: Int
    /// Seconds allowed for the script to print its port (generous: a loaded 2-core machine).
    static let startTimeoutSeconds = 15.0

    init(lifetimeSeconds: Int = 90, maxRequests: Int = 200) throws {
        guard let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw TestServerError("Fixtures directory not found in the test bundle")
        }
        let script = fixtures.appendingPathComponent("preload_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--lifetime-seconds", "\(lifetimeSeconds)", "--max-requests", "\(maxRequests)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()

        // Read the "PORT <n>" line on another thread, waiting a bounded time for it.
        let reader = output.fileHandleForReading
        let box = LineBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var bytes = [UInt8]()
            while bytes.count < 64 {
                let chunk = reader.readData(ofLength: 1)
                if chunk.isEmpty || chunk.first == 0x0A { break }
                bytes.append(contentsOf: chunk)
            }
            box.line = String(decoding: bytes, as: UTF8.self)
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.startTimeoutSeconds) == .success else {
            process.terminate()
            throw TestServerError("server printed no port within \(Self.startTimeoutSeconds) s")
        }
        let parts = box.line.split(separator: " ")
        guard parts.count == 2, parts[0] == "PORT", let port = Int(parts[1]) else {
            process.terminate()
            throw TestServerError("unexpected first line from the server: \"\(box.line)\"")
        }
        self.port = port
    }

    final class LineBox: @unchecked Sendable { var line = "" }

    /// A client without cache or cookies, so every `/__log` read reaches the server.
    static let client: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every request logged so far, in arrival order.
    func requests() async throws -> [LoggedRequest] {
        let (data, _) = try await Self.client.data(from: try XCTUnwrap(URL(string: url("/__log"))))
        return try JSONDecoder().decode([LoggedRequest].self, from: data)
    }

    /// Requests whose path (without query) is `path`.
    func requests(for path: String) async throws -> [LoggedRequest] {
        try await requests().filter { $0.path.split(separator: "?", maxSplits: 1).first.map(String.init) == path }
    }

    /// Stores `data` so that `GET /doc/<name>` serves it.
    func putDocument(_ name: String, _ data: Data) async throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url("/doc/\(name)"))))
        request.httpMethod = "PUT"
        request.httpBody = data
        let (_, response) = try await Self.client.data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 204)
    }

    /// Kills the server (SIGKILL: it holds no state worth a clean exit, and a child of the test
    /// process may inherit a mask blocking SIGTERM) and waits at most 5 s for Foundation to see
    /// it gone. (`Process.waitUntilExit` spins a run loop that does not return on Linux when
    /// called from a concurrency thread, so this polls `isRunning`.)
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
    }
}

struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
