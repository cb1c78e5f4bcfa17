#include "core/trace/nsys_reader.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include <sqlite3.h>

#include "core/errors.h"
#include "core/io/read_file.h"
#include "core/trace/trace_time.h"

namespace mfu::trace {

namespace {

// copyKind of CUPTI_ACTIVITY_KIND_MEMCPY (CUpti_ActivityMemcpyKind).
const char* copyKindName(int64_t kind)
{
    switch (kind) {
    case 1:
        return "Memcpy HtoD";
    case 2:
        return "Memcpy DtoH";
    case 3:
        return "Memcpy HtoA";
    case 4:
        return "Memcpy AtoH";
    case 5:
        return "Memcpy AtoA";
    case 6:
        return "Memcpy AtoD";
    case 7:
        return "Memcpy DtoA";
    case 8:
        return "Memcpy DtoD";
    case 9:
        return "Memcpy HtoH";
    case 10:
        return "Memcpy PtoP";
    default:
        return "Memcpy";
    }
}

// Nsight Systems 2025.6 and later write exported rows in no particular order. Timeline wants activities and
// annotations by start and launches by correlation; ties are broken on every field so that the same rows in any
// order give the same timeline (of two annotations starting together the longer, the enclosing one, first).
void sortAsTimelineRequires(Timeline& t)
{
    std::sort(t.activities.begin(), t.activities.end(), [](const GpuActivity& a, const GpuActivity& b) {
        return std::tie(a.startNs, a.endNs, a.device, a.stream, a.correlation, a.kind)
            < std::tie(b.startNs, b.endNs, b.device, b.stream, b.correlation, b.kind);
    });
    // Name ids follow the order names were first met, so ties compare the names' text.
    std::sort(t.annotations.begin(), t.annotations.end(), [&t](const Annotation& a, const Annotation& b) {
        if (a.startNs != b.startNs || a.endNs != b.endNs)
            return a.startNs != b.startNs ? a.startNs < b.startNs : a.endNs > b.endNs;
        return t.names.name(a.name) < t.names.name(b.name);
    });
    // Thread indices likewise: renumbered in tid order.
    std::vector<int64_t> tids = t.threads;
    std::sort(tids.begin(), tids.end());
    std::vector<int32_t> renumbered(t.threads.size());
    for (size_t i = 0; i < t.threads.size(); ++i)
        renumbered[i] = static_cast<int32_t>(std::lower_bound(tids.begin(), tids.end(), t.threads[i]) - tids.begin());
    t.threads = tids;
    for (Launch& l : t.launches)
        l.thread = renumbered[static_cast<size_t>(l.thread)];
    std::sort(t.launches.begin(), t.launches.end(), [](const Launch& a, const Launch& b) {
        return std::tie(a.correlation, a.startNs, a.endNs, a.thread)
            < std::tie(b.correlation, b.startNs, b.endNs, b.thread);
    });
}

// SQLite runs a query to its first row without returning: a view that recurses forever (or a huge join) would
// hold the reading thread at full CPU, deaf to Cancel. A progress handler, called every kProgressOps virtual
// machine instructions, interrupts the query when the cancel flag is set or no row has come for
// ReadControl::stallLimitSeconds.
constexpr int kProgressOps = 100000;

class Database {
public:
    Database(const std::filesystem::path& path, const ReadControl& control)
        : m_name(path.string())
        , m_control(control)
    {
        requireRegularFile(path, "an Nsight Systems export"); // a FIFO would block SQLite's open
        sqlite3* db = nullptr;
        const int rc = sqlite3_open_v2(m_name.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
        m_db.reset(db); // closed on every path, also when this constructor throws below
        if (rc != SQLITE_OK)
            fail("cannot open as SQLite");
        sqlite3_progress_handler(db, kProgressOps, &Database::interruptWhenDue, this);
        for (Statement& s : query("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")) {
            m_tables.insert(s.text(0));
            if (s.text(1) == "view")
                m_views.insert(s.text(0));
        }
    }

    Database(const Database&) = delete; // the progress handler holds `this`
    Database& operator=(const Database&) = delete;

    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError(
            m_name + ": " + what + (m_db ? std::string(": ") + sqlite3_errmsg(m_db.get()) : std::string()));
    }

    bool hasTable(const std::string& t) const { return m_tables.count(t) > 0; }
    bool isView(const std::string& t) const { return m_views.count(t) > 0; }
    bool hasColumn(const std::string& table, const std::string& column)
    {
        for (Statement& s : query("PRAGMA table_info(" + table + ")"))
            if (s.text(1) == column)
                return true;
        return false;
    }

    // A prepared statement iterated row by row: `for (Statement& row : db.query(sql))`.
    class Statement {
    public:
        Statement(Database& db, const std::string& sql)
            : m_db(db)
        {
            db.m_lastRow = std::chrono::steady_clock::now();
            if (sqlite3_prepare_v2(db.m_db.get(), sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK)
                db.fail("cannot query (" + sql.substr(0, 60) + ")");
        }
        ~Statement() { sqlite3_finalize(m_stmt); }
        Statement(const Statement&) = delete;
        Statement& operator=(const Statement&) = delete;
        bool step()
        {
            const int rc = sqlite3_step(m_stmt);
            if (rc == SQLITE_INTERRUPT)
                m_db.interrupted();
            if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                m_db.fail("read error");
            m_db.m_lastRow = std::chrono::steady_clock::now();
            return rc == SQLITE_ROW;
        }
        int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
        bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
        std::string text(int col) const
        {
            const auto* t = sqlite3_column_text(m_stmt, col);
            return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
        }

        struct Iterator {
            Statement* s;
            bool operator!=(const Iterator& o) const { return s != o.s; }
            Iterator& operator++()
            {
                if (!s->step())
                    s = nullptr;
                return *this;
            }
            Statement& operator*() const { return *s; }
        };
        Iterator begin() { return { step() ? this : nullptr }; }
        Iterator end() { return { nullptr }; }

    private:
        Database& m_db;
        sqlite3_stmt* m_stmt = nullptr;
    };

    Statement query(const std::string& sql) { return Statement(*this, sql); }
    const std::string& name() const { return m_name; }

private:
    static int interruptWhenDue(void* self)
    {
        auto* db = static_cast<Database*>(self);
        if (db->m_control.cancel && db->m_control.cancel->load(std::memory_order_relaxed))
            return 1;
        const std::chrono::duration<double> quiet = std::chrono::steady_clock::now() - db->m_lastRow;
        return quiet.count() > db->m_control.stallLimitSeconds ? 1 : 0;
    }
    [[noreturn]] void interrupted() const
    {
        if (m_control.cancel && m_control.cancel->load())
            throw Cancelled();
        const auto seconds = static_cast<long long>(std::ceil(m_control.stallLimitSeconds));
        throw InputError(m_name + ": a query gave no row in " + std::to_string(seconds)
            + " s (is a table a view that recurses without end?); not read");
    }

    std::string m_name;
    ReadControl m_control;
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> m_db { nullptr, sqlite3_close };
    std::set<std::string> m_tables;
    std::set<std::string> m_views;
    std::chrono::steady_clock::time_point m_lastRow = std::chrono::steady_clock::now();
};

class NsysReader {
public:
    NsysReader(const std::filesystem::path& path, const ReadControl& control)
        : m_db(path, control)
        , m_control(control)
    {
        m_timeline.sourceFile = path.string();
        m_timeline.format = "nsys-sqlite";
    }

    Timeline read()
    {
        static const char* const kTables[] = { "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
            "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS" };
        if (std::none_of(std::begin(kTables), std::end(kTables), [&](const char* t) { return m_db.hasTable(t); }))
            throw InputError(m_db.name()
                + ": no Nsight Systems tables (CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS): not an "
                  "`nsys export --type sqlite` file");
        if (m_db.hasTable("META_DATA_EXPORT"))
            for (auto& row : m_db.query("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'"))
                m_timeline.format = "nsys-sqlite (schema " + row.text(0) + ")";
        if (m_db.hasTable("TARGET_INFO_SESSION_START_TIME")
            && m_db.hasColumn("TARGET_INFO_SESSION_START_TIME", "utcEpochNs"))
            for (auto& row : m_db.query("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1"))
                m_timeline.timeOriginNs = isTraceTime(row.integer(0)) ? row.integer(0) : 0; // a corrupt origin: none
        // Progress counts tables read (SQLite gives no byte position). A file changed between them (re-exported)
        // makes SQLite fail with a read or schema error, which Database::fail reports naming the file.
        constexpr uint64_t kSteps = 7;
        readKernels();
        reportProgress(1, kSteps);
        readMemory("CUPTI_ACTIVITY_KIND_MEMCPY", ActivityKind::Memcpy);
        reportProgress(2, kSteps);
        readMemory("CUPTI_ACTIVITY_KIND_MEMSET", ActivityKind::Memset);
        reportProgress(3, kSteps);
        readLaunches();
        reportProgress(4, kSteps);
        readNvtx();
        reportProgress(5, kSteps);
        readGpuName();
        reportProgress(6, kSteps);
        sortAsTimelineRequires(m_timeline);
        if (m_dropped > 0)
            m_timeline.warnings.push_back("dropped " + std::to_string(m_dropped)
                + " event(s) whose end is before their start or whose time is beyond any clock (past +-4e18 ns)");
        reportProgress(kSteps, kSteps);
        return std::move(m_timeline);
    }

private:
    void reportProgress(uint64_t done, uint64_t total) const
    {
        if (m_control.onProgress)
            m_control.onProgress(done, total);
    }
    void checkCancel()
    {
        if ((++m_rows & 0xFFFF) == 0 && m_control.cancel && m_control.cancel->load(std::memory_order_relaxed))
            throw Cancelled();
    }

    NameId stringId(int64_t id)
    {
        if (auto it = m_strings.find(id); it != m_strings.end())
            return it->second;
        const NameId n = m_timeline.names.intern(stringValue(id));
        m_strings.emplace(id, n);
        return n;
    }

    // StringIds is read once, whole: a lookup per id is quadratic when the table has no index on id (40,000 names
    // took 41 s). A view (never what nsys writes) is looked up per id instead, so one that recurses without end
    // meets the progress handler's limit rather than filling memory.
    std::string stringValue(int64_t id)
    {
        std::string value = "<string " + std::to_string(id) + ">";
        if (!m_db.hasTable("StringIds"))
            return value;
        if (m_db.isView("StringIds")) {
            for (auto& row : m_db.query("SELECT value FROM StringIds WHERE id = " + std::to_string(id) + " LIMIT 1"))
                value = row.text(0);
            return value;
        }
        if (!m_stringValues) {
            m_stringValues.emplace();
            for (auto& row : m_db.query("SELECT id, value FROM StringIds")) {
                checkCancel();
                (*m_stringValues)[row.integer(0)] = row.text(1); // a repeated id: its last row, as a lookup gave
            }
        }
        if (auto it = m_stringValues->find(id); it != m_stringValues->end())
            return it->second;
        return value;
    }

    void add(
        int64_t start, int64_t end, NameId name, int64_t device, int64_t stream, int64_t correlation, ActivityKind kind)
    {
        if (end < start || !isTraceTime(start) || !isTraceTime(end)) {
            ++m_dropped; // a negative span, or a time past core/trace/trace_time.h's range that could wrap
            return;
        }
        m_timeline.activities.push_back({ start, end, correlation, name, static_cast<int32_t>(device),
            static_cast<int32_t>(stream), kind, KernelCategory::Other });
    }

    void readKernels()
    {
        const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
        if (!m_db.hasTable(table))
            return;
        const std::string nameColumn = m_db.hasColumn(table, "demangledName") ? "demangledName" : "shortName";
        for (auto& row :
            m_db.query("SELECT start, end, deviceId, streamId, correlationId, " + nameColumn + " FROM " + table)) {
            checkCancel();
            add(row.integer(0), row.integer(1), stringId(row.integer(5)), row.integer(2), row.integer(3),
                row.integer(4), ActivityKind::Kernel);
        }
    }

    void readMemory(const std::string& table, ActivityKind kind)
    {
        if (!m_db.hasTable(table))
            return;
        const bool copyKind = kind == ActivityKind::Memcpy && m_db.hasColumn(table, "copyKind");
        for (auto& row : m_db.query("SELECT start, end, deviceId, streamId, correlationId"
                 + std::string(copyKind ? ", copyKind" : "") + " FROM " + table)) {
            checkCancel();
            const char* name = kind == ActivityKind::Memset ? "Memset" : copyKindName(copyKind ? row.integer(5) : 0);
            add(row.integer(0), row.integer(1), m_timeline.names.intern(name), row.integer(2), row.integer(3),
                row.integer(4), kind);
        }
    }

    void readLaunches()
    {
        if (!m_db.hasTable("CUPTI_ACTIVITY_KIND_RUNTIME"))
            return;
        // end, the calling thread and the call's name exist in every schema version that has the table.
        const bool full = m_db.hasColumn("CUPTI_ACTIVITY_KIND_RUNTIME", "nameId")
            && m_db.hasColumn("CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid");
        const std::string sql = full
            ? "SELECT start, correlationId, end, globalTid, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME"
            : "SELECT start, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME";
        const NameId unnamed = m_timeline.names.intern("CUDA runtime call");
        for (auto& row : m_db.query(sql)) {
            checkCancel();
            if (!isTraceTime(row.integer(0)) || (full && !row.isNull(2) && !isTraceTime(row.integer(2)))) {
                ++m_dropped;
                continue;
            }
            Launch l;
            l.name = unnamed;
            l.correlation = row.integer(1);
            l.startNs = row.integer(0);
            l.endNs = l.startNs;
            // A schema without the calling thread has one unknown thread (-1), registered like any other so the index
            // stays valid when the threads are renumbered.
            if (!full)
                l.thread = m_timeline.threadIndex(-1);
            if (full) {
                l.endNs = std::max(l.startNs, row.isNull(2) ? l.startNs : row.integer(2));
                l.thread = m_timeline.threadIndex(row.isNull(3) ? -1 : row.integer(3));
                if (!row.isNull(4)) {
                    l.name = stringId(row.integer(4));
                    l.kind = runtimeKindOf(m_timeline.names.name(l.name));
                }
            }
            m_timeline.launches.push_back(l);
        }
    }

    void readNvtx()
    {
        if (!m_db.hasTable("NVTX_EVENTS"))
            return;
        const bool textId = m_db.hasColumn("NVTX_EVENTS", "textId");
        const std::string sql = std::string("SELECT start, end, text") + (textId ? ", textId" : "")
            + " FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL";
        for (auto& row : m_db.query(sql)) {
            checkCancel();
            NameId name = 0;
            if (!row.isNull(2))
                name = m_timeline.names.intern(row.text(2));
            else if (textId && !row.isNull(3))
                name = stringId(row.integer(3));
            else
                continue;
            if (row.integer(1) < row.integer(0) || !isTraceTime(row.integer(0)) || !isTraceTime(row.integer(1))) {
                ++m_dropped;
                continue;
            }
            m_timeline.annotations.push_back({ row.integer(0), row.integer(1), name, false });
        }
    }

    void readGpuName()
    {
        std::map<int32_t, size_t> perDevice;
        for (const auto& a : m_timeline.activities)
            ++perDevice[a.device];
        const int64_t busiest
            = perDevice.empty() ? -1 : std::max_element(perDevice.begin(), perDevice.end(), [](auto& a, auto& b) {
                  return a.second < b.second;
              })->first;
        for (const char* table : { "TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU" }) {
            if (!m_db.hasTable(table) || !m_db.hasColumn(table, "name"))
                continue;
            const bool hasId = m_db.hasColumn(table, "id");
            for (auto& row : m_db.query(std::string("SELECT name") + (hasId ? ", id" : "") + " FROM " + table)) {
                if (!m_timeline.gpuName || (hasId && row.integer(1) == busiest))
                    m_timeline.gpuName = row.text(0);
            }
            return;
        }
    }

    Database m_db;
    ReadControl m_control;
    Timeline m_timeline;
    std::unordered_map<int64_t, NameId> m_strings;
    std::optional<std::unordered_map<int64_t, std::string>> m_stringValues; // StringIds, once read
    uint64_t m_rows = 0;
    size_t m_dropped = 0;
};

} // namespace

bool isSqliteFile(const std::filesystem::path& path)
{
    std::FILE* file = nullptr;
    try {
        file = InputFile(path, "a profiler trace").releaseAsStream();
    } catch (const InputError&) {
        return false; // a FIFO, a device, a missing file: loadTrace's reader then says what the file is
    }
    char header[16] = {};
    const size_t got = std::fread(header, 1, sizeof header, file);
    std::fclose(file);
    return got == 16 && std::memcmp(header, "SQLite format 3\0", 16) == 0;
}

Timeline readNsysSqlite(const std::filesystem::path& path, const ReadControl& control)
{
    return NsysReader(path, control).read();
}

} // namespace mfu::trace
