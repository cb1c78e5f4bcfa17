#include "core/trace/nsys_reader.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>

#include <sqlite3.h>

#include "core/errors.h"

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

class Database {
public:
    explicit Database(const std::filesystem::path& path)
        : m_name(path.string())
    {
        sqlite3* db = nullptr;
        const int rc = sqlite3_open_v2(m_name.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
        m_db.reset(db); // closed on every path, also when this constructor throws below
        if (rc != SQLITE_OK)
            fail("cannot open as SQLite");
        for (Statement& s : query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
            m_tables.insert(s.text(0));
    }

    [[noreturn]] void fail(const std::string& what) const
    {
        throw InputError(
            m_name + ": " + what + (m_db ? std::string(": ") + sqlite3_errmsg(m_db.get()) : std::string()));
    }

    bool hasTable(const std::string& t) const { return m_tables.count(t) > 0; }
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
            if (sqlite3_prepare_v2(db.m_db.get(), sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK)
                db.fail("cannot query (" + sql.substr(0, 60) + ")");
        }
        ~Statement() { sqlite3_finalize(m_stmt); }
        Statement(const Statement&) = delete;
        Statement& operator=(const Statement&) = delete;
        bool step()
        {
            const int rc = sqlite3_step(m_stmt);
            if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                m_db.fail("read error");
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
    std::string m_name;
    std::unique_ptr<sqlite3, int (*)(sqlite3*)> m_db { nullptr, sqlite3_close };
    std::set<std::string> m_tables;
};

class NsysReader {
public:
    NsysReader(const std::filesystem::path& path, const ReadControl& control)
        : m_db(path)
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
                m_timeline.timeOriginNs = row.integer(0);
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
            m_timeline.warnings.push_back(
                "dropped " + std::to_string(m_dropped) + " event(s) whose end is before their start");
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
        std::string value = "<string " + std::to_string(id) + ">";
        if (m_db.hasTable("StringIds"))
            for (auto& row : m_db.query("SELECT value FROM StringIds WHERE id = " + std::to_string(id)))
                value = row.text(0);
        const NameId n = m_timeline.names.intern(value);
        m_strings.emplace(id, n);
        return n;
    }

    void add(
        int64_t start, int64_t end, NameId name, int64_t device, int64_t stream, int64_t correlation, ActivityKind kind)
    {
        if (end < start) {
            ++m_dropped;
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
            Launch l;
            l.name = unnamed;
            l.correlation = row.integer(1);
            l.startNs = row.integer(0);
            l.endNs = l.startNs;
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
            if (row.integer(1) < row.integer(0)) {
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
    uint64_t m_rows = 0;
    size_t m_dropped = 0;
};

} // namespace

bool isSqliteFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    in.read(header, sizeof header);
    return in.gcount() == 16 && std::memcmp(header, "SQLite format 3\0", 16) == 0;
}

Timeline readNsysSqlite(const std::filesystem::path& path, const ReadControl& control)
{
    return NsysReader(path, control).read();
}

} // namespace mfu::trace
