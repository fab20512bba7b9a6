// swift-tools-version:6.0
//
// Prestage: a discrete-event simulator for push-notification asset pre-staging via CDN.
//
// The layers, bottom up. Each module may import only what its line names (platform modules
// included); Tests/ArchitectureTests checks every target's declared dependencies and every source
// file's imports against these rules, and that each target declares exactly the package modules
// its sources import (no dependency that nothing imports, no import that is not declared).
//
//   CGSL, CZlib            system-library shims (libgsl, zlib); nothing else reaches the C libraries
//   PreloadKit             nothing, not even Foundation: the client logic an app ships (a product)
//   PreloadKitFoundation   PreloadKit, Foundation(Networking): the real driver an app ships (a product)
//   SimKernel              nothing (the standard library): virtual time, pending events, the run loop
//   Stochastic             CGSL (the only module that imports it), libc
//   SimStats               Stochastic, Foundation
//   InfraModel             SimKernel, Stochastic, Foundation
//   PushModel              InfraModel, SimKernel, Stochastic, SimStats, Foundation, and PreloadKit:
//                          the simulator drives the very same client code in virtual time
//   ReportKit              Foundation only: reports from plain data, no model
//   LogFit                 Stochastic, CZlib (the only module that imports it), Foundation: no model
//   ScenarioFormat         PushModel, InfraModel, Stochastic, PreloadKit (the client policy a scenario
//                          configures, SHA-256 for content hashes, JSON string escapes), Foundation, libc
//   Experiments            ScenarioFormat, PushModel, SimStats, ReportKit, SimKernel, Stochastic,
//                          Foundation, Dispatch, libc, and PreloadKit's SHA-256 only (scoped imports of
//                          SHA256 and SHA256Hasher); no Testbed, LogFit or command line
//   Testbed                Experiments, ScenarioFormat, PushModel, InfraModel, Stochastic, SimStats,
//                          ReportKit, PreloadKit, PreloadKitFoundation, Foundation(Networking), libc
//   PrestageCLI            Experiments, ScenarioFormat, Testbed, LogFit, PushModel, ReportKit,
//                          Foundation, Dispatch, libc
//   prestage               PrestageCLI, Foundation (the tool: a thin main)
//   prestage-kernel-bench  SimKernel, Stochastic, PushModel, ScenarioFormat, Foundation, libc
//   ReportKitTesting       ReportKit, Foundation, XCTest (test support under Tests/; only tests import it)
//   XTests                 X, anything X may reach under these rules, XCTest, Foundation and
//                          ReportKitTesting (LogFitTests also PrestageCLI: it runs `fit` end to end)
//
// So: the models know nothing of files or commands; the file format knows nothing of experiments;
// experiments know nothing of the testbed or the command line; reports and log fitting know no model.
//
// SHA-256 (scenario, sweep and result hashes, bench fingerprints) comes from PreloadKit, the
// package's one FIPS 180-4 implementation. It has to live there: the client derives its store keys
// and checks payload signatures (HMAC-SHA256) with it, and PreloadKit ships in apps and depends on
// nothing, so it cannot share a separate checksum module, and a simulator-side copy would be a
// second SHA-256 to keep identical. An edge down to a dependency-free leaf inverts no layer;
// Experiments, which needs nothing else of the client, names just the hash in its imports.
import PackageDescription

let strictFlags: [SwiftSetting] = [
    // `swift build -Xswiftc -DPRESTAGE_INVARIANTS` (or `make test`) turns on expensive invariant checks.
    .define("PRESTAGE_INVARIANTS", .when(configuration: .debug)),
]

let package = Package(
    name: "Prestage",
    products: [
        .library(name: "PreloadKit", targets: ["PreloadKit"]),
        .library(name: "PreloadKitFoundation", targets: ["PreloadKitFoundation"]),
        .executable(name: "prestage", targets: ["prestage"]),
    ],
    targets: [
        // Layer 0: the C library, reached only through this shim.
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"])]
        ),
        // zlib, reached only by LogFit's line reader (gzip and plain logs alike).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Layer 1: random streams and distributions. The only module that imports CGSL.
        .target(name: "Stochastic", dependencies: ["CGSL"], swiftSettings: strictFlags),
        // Layer 2: virtual time, the pending-event set and the run loop. No domain code.
        .target(name: "SimKernel", dependencies: [], swiftSettings: strictFlags),
        // Layer 3: world models: mobile networks, CDN PoPs, shields and origin.
        .target(name: "InfraModel", dependencies: ["SimKernel", "Stochastic"], swiftSettings: strictFlags),

        // The client pre-stage logic: sans-I/O, platform-neutral, no dependencies.
        .target(name: "PreloadKit", swiftSettings: strictFlags),
        // The real driver: URLSession + an atomic file store, running PreloadKit against the real clock.
        .target(name: "PreloadKitFoundation", dependencies: ["PreloadKit"], swiftSettings: strictFlags),
        // Human-readable reports (Markdown, self-contained HTML + inline SVG) from plain data; Foundation only.
        .target(name: "ReportKit", swiftSettings: strictFlags),

        // Output statistics: replication CIs, paired comparisons, mergeable latency histograms.
        .target(name: "SimStats", dependencies: ["Stochastic"], swiftSettings: strictFlags),
        // Layer 4: devices, OS rules, users and campaigns driving PreloadKit against InfraModel.
        .target(
            name: "PushModel",
            dependencies: ["InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit"],
            swiftSettings: strictFlags
        ),

        // Calibration from logs: CDN and push-analytics readers (streaming, gzip), the fits (through
        // Stochastic's GSL fitting API), the scenario overlay and the fit report.
        .target(name: "LogFit", dependencies: ["Stochastic", "CZlib"], swiftSettings: strictFlags),

        // Scenario and sweep files: strict JSON decoding with path-named errors, overrides, limits.
        .target(
            name: "ScenarioFormat",
            dependencies: ["PushModel", "InfraModel", "Stochastic", "PreloadKit"],
            swiftSettings: strictFlags
        ),
        // Replications, aggregation, sweeps and their merge, comparison, the bench gate, reports and
        // atomic result directories.
        .target(
            name: "Experiments",
            dependencies: ["ScenarioFormat", "PushModel", "SimStats", "ReportKit", "SimKernel", "Stochastic", "PreloadKit"],
            swiftSettings: strictFlags
        ),
        // The loopback testbed: the scaled scenario on real software (Varnish, a Python origin, a
        // user-space link shaper, PreloadKitFoundation devices) against the model, compared.
        .target(
            name: "Testbed",
            dependencies: ["Experiments", "ScenarioFormat", "PushModel", "InfraModel", "Stochastic", "SimStats", "ReportKit",
                           "PreloadKit", "PreloadKitFoundation"],
            swiftSettings: strictFlags
        ),
        // The command-line front: argument parsing and every command (a library, so tests drive it).
        .target(
            name: "PrestageCLI",
            dependencies: ["Experiments", "ScenarioFormat", "Testbed", "LogFit", "PushModel", "ReportKit"],
            swiftSettings: strictFlags
        ),
        // Top: the command-line tool (a thin main over PrestageCLI).
        .executableTarget(
            name: "prestage",
            dependencies: ["PrestageCLI"],
            swiftSettings: strictFlags
        ),
        // Kernel hold-model benchmark plus the full model against the hold loop at the model's
        // pending-event count (`make bench`); never run as a timed test.
        .executableTarget(
            name: "prestage-kernel-bench",
            dependencies: ["SimKernel", "Stochastic", "PushModel", "ScenarioFormat"],
            swiftSettings: strictFlags
        ),

        .testTarget(name: "StochasticTests", dependencies: ["Stochastic", "CGSL"]),
        .testTarget(name: "SimKernelTests", dependencies: ["SimKernel"]),
        .testTarget(name: "InfraModelTests", dependencies: ["InfraModel", "SimKernel", "Stochastic"]),
        .testTarget(name: "PreloadKitTests", dependencies: ["PreloadKit"]),
        .testTarget(
            name: "PreloadKitFoundationTests",
            dependencies: ["PreloadKitFoundation", "PreloadKit"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SimStatsTests", dependencies: ["SimStats", "Stochastic"]),
        .testTarget(
            name: "PushModelTests",
            dependencies: ["PushModel", "InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit"]
        ),
        // Stochastic only to check that its Distribution decoding reports well through ScenarioFormat.
        .testTarget(name: "ScenarioFormatTests", dependencies: ["ScenarioFormat", "Stochastic", "PushModel", "InfraModel"]),
        // Test support: headless Chromium and the report layout assertions (desktop and phone width).
        .target(name: "ReportKitTesting", dependencies: ["ReportKit"], path: "Tests/ReportKitTesting"),
        .testTarget(name: "ReportKitTests", dependencies: ["ReportKit", "ReportKitTesting"]),
        .testTarget(name: "ExperimentsTests", dependencies: ["Experiments", "ScenarioFormat", "PushModel", "SimStats"]),
        .testTarget(
            name: "PrestageCLITests",
            dependencies: ["PrestageCLI", "Experiments", "ScenarioFormat", "PushModel", "InfraModel", "SimStats", "SimKernel", "PreloadKit",
                           "ReportKit", "ReportKitTesting"]
        ),
        // The layer rules above, checked against this file and every source file's imports.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "TestbedTests", dependencies: ["Testbed", "Experiments", "ScenarioFormat", "PushModel", "InfraModel", "SimStats"]),
        .testTarget(name: "LogFitTests", dependencies: ["LogFit", "Stochastic", "ScenarioFormat", "Experiments", "PrestageCLI"], resources: [.copy("Samples")]),
    ],
    swiftLanguageModes: [.v6]
)
