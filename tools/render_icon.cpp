// Build-time helper: renders the application's SVG icon to one square PNG per hicolor size, so the SVG stays the
// single source of the artwork. Usage: mfu_render_icon INPUT.svg OUTPUT.png SIZE
#include <QImage>
#include <QPainter>
#include <QString>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char* argv[])
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: mfu_render_icon INPUT.svg OUTPUT.png SIZE\n");
        return 2;
    }
    bool sizeOk = false;
    const int size = QString::fromLocal8Bit(argv[3]).toInt(&sizeOk);
    if (!sizeOk || size < 1 || size > 4096) {
        std::fprintf(stderr, "mfu_render_icon: error: size '%s' is not a pixel size between 1 and 4096\n", argv[3]);
        return 2;
    }
    QSvgRenderer renderer(QString::fromLocal8Bit(argv[1]));
    if (!renderer.isValid()) {
        std::fprintf(stderr, "mfu_render_icon: error: cannot read SVG '%s'\n", argv[1]);
        return 1;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::SmoothPixmapTransform);
        renderer.render(&painter);
    }
    if (!image.save(QString::fromLocal8Bit(argv[2]), "PNG")) {
        std::fprintf(stderr, "mfu_render_icon: error: cannot write '%s'\n", argv[2]);
        return 1;
    }
    return 0;
}
