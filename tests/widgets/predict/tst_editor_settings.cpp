// The Predict editor's fields come from the settings table (core/scenario/settings.h): every field is a Predict
// setting's or one of the few that edit something else (listed here, each with why), and each table field has the
// table's bounds, choices and help.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

#include <climits>
#include <set>

#include "app/preset_store.h"
#include "core/scenario/settings.h"
#include "widgets/predict/parallelism_editor.h"
#include "widgets/scenario/scenario_model.h"

using namespace mfu;
using namespace mfu::widgets;

class TestEditorSettings : public QObject {
    Q_OBJECT
private slots:
    void everyFieldIsInTheTable()
    {
        ScenarioModel model;
        ParallelismEditor editor(&model);
        const std::set<QString> outside = {
            QStringLiteral("embeddingLossStages"), // two settings (embedding_stage, loss_stage) in one check box
            QStringLiteral("documentLength"), // packing, with its own reader
            QStringLiteral("attentionMask"), QStringLiteral("paddingPercent"),
            QStringLiteral("visionTokens"), // vision inputs
        };
        std::set<QString> fields;
        for (QWidget* w : editor.findChildren<QWidget*>()) {
            const QString name = w->objectName();
            if (name.isEmpty() || name.endsWith(QLatin1String("Reason")) || name.startsWith(QLatin1String("qt_")))
                continue;
            if (!qobject_cast<QSpinBox*>(w) && !qobject_cast<QComboBox*>(w) && !qobject_cast<QCheckBox*>(w)
                && !qobject_cast<QLineEdit*>(w))
                continue;
            if (qobject_cast<QLineEdit*>(w) && qobject_cast<QAbstractSpinBox*>(w->parentWidget()))
                continue; // a spin box's own line edit
            fields.insert(name);
            const Setting* s = findSettingByField(name.toStdString());
            QVERIFY2(s || outside.count(name), qPrintable(name + QStringLiteral(" is a field outside the table")));
            if (!s)
                continue;
            QCOMPARE(w->accessibleName(), QString::fromUtf8(s->help.data(), qsizetype(s->help.size())));
            if (auto* spin = qobject_cast<QSpinBox*>(w)) {
                QCOMPARE(int64_t(spin->minimum()), s->minimum);
                QCOMPARE(int64_t(spin->maximum()), std::min<int64_t>(s->maximum, INT_MAX));
            }
            if (auto* combo = qobject_cast<QComboBox*>(w); combo && s->kind == SettingKind::Choice)
                QCOMPARE(size_t(combo->count()), s->choices.size());
        }
        for (const Setting& s : scenarioSettings())
            if (s.editor == SettingEditor::Predict && !s.field.empty())
                QVERIFY2(fields.count(QString::fromUtf8(s.field.data(), qsizetype(s.field.size()))), s.field.data());
    }

    // A number setting (a share, a factor) is typed as text and read by the table's parser and bounds: the same
    // words as the flag, a refusal beside the field, and an empty field back at the default.
    void numberFieldsTakeWhatTheFlagTakes()
    {
        ScenarioModel model;
        const PresetLibrary& presets = app::presetLibrary();
        Scenario s;
        s.model = *presets.findModel("llama-3.1-70b");
        s.cluster.hardware = *presets.findHardware("b200");
        s.cluster.gpuCount = 16;
        model.setScenario(s);
        ParallelismEditor editor(&model);
        auto* offload = editor.findChild<QLineEdit*>(QStringLiteral("optimizerOffload"));
        QVERIFY(offload);
        QCOMPARE(offload->text(), QString()); // at the default: the placeholder says "none"
        QCOMPARE(offload->placeholderText(), QStringLiteral("none"));
        const auto type = [](QLineEdit* field, const QString& text) {
            field->setText(text);
            emit field->editingFinished();
        };
        type(offload, QStringLiteral("5e-1"));
        QCOMPARE(model.scenario().flags.optimizerOffloadFraction, 0.5);
        QCOMPARE(offload->text(), QStringLiteral("0.5"));
        QVERIFY(editor.validationReason(QStringLiteral("optimizerOffload")).isEmpty());

        type(offload, QStringLiteral("1.5"));
        QCOMPARE(model.scenario().flags.optimizerOffloadFraction, 0.5); // refused: the scenario keeps its value
        QVERIFY2(editor.validationReason(QStringLiteral("optimizerOffload")).contains(QStringLiteral("0 (none) to 1")),
            qPrintable(editor.validationReason(QStringLiteral("optimizerOffload"))));
        type(offload, QStringLiteral("half"));
        QVERIFY(editor.validationReason(QStringLiteral("optimizerOffload")).contains(QStringLiteral("not a number")));

        type(offload, QString());
        QCOMPARE(model.scenario().flags.optimizerOffloadFraction, 0.0);

        auto* capacity = editor.findChild<QLineEdit*>(QStringLiteral("expertCapacityFactor"));
        QVERIFY(capacity);
        type(capacity, QStringLiteral("0.5")); // between dropless and 1: no capacity factor
        QVERIFY(!editor.validationReason(QStringLiteral("expertCapacityFactor")).isEmpty());
        QCOMPARE(model.scenario().parallelism.expertCapacityFactor, 0.0);
    }
};

QTEST_MAIN(TestEditorSettings)
#include "tst_editor_settings.moc"
