# Install layout (GNUInstallDirs) and the Debian package (CPack). Included once, at the end of the top-level
# CMakeLists.txt; the executable's own install(TARGETS) rule lives in app/CMakeLists.txt.
#   bin/mfu-explorer
#   share/applications/mfu-explorer.desktop             launcher; MimeType lists scenarios and traces
#   share/mime/packages/mfu-explorer.xml                 application/x-mfu-explorer-scenario (*.mfu.json)
#   share/icons/hicolor/{16..256}/apps/mfu-explorer.png  rendered at build time from the SVG below
#   share/icons/hicolor/scalable/apps/mfu-explorer.svg
#   share/metainfo/io.github.mfu_explorer.metainfo.xml   AppStream
#   share/mfu-explorer/presets/                          informational copy: the binary embeds its presets
#   lib/python3/dist-packages/mfu_explorer.cpython-*.so  the Python module, when built (its rule: python/CMakeLists.txt)
include(GNUInstallDirs)

set(MFU_RESOURCES_DIR ${PROJECT_SOURCE_DIR}/resources)
set(MFU_ICON_SVG ${MFU_RESOURCES_DIR}/icons/mfu-explorer.svg)

# The SVG is the only artwork; every PNG size is rendered from it so they cannot drift apart.
add_executable(mfu_render_icon ${PROJECT_SOURCE_DIR}/tools/render_icon.cpp)
target_link_libraries(mfu_render_icon PRIVATE Qt6::Gui Qt6::Svg)
mfu_set_warnings(mfu_render_icon)

set(MFU_ICON_SIZES 16 22 24 32 48 64 128 256)
set(MFU_ICON_PNGS)
foreach(size ${MFU_ICON_SIZES})
  set(png ${CMAKE_BINARY_DIR}/icons/hicolor/${size}x${size}/apps/mfu-explorer.png)
  add_custom_command(OUTPUT ${png}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/icons/hicolor/${size}x${size}/apps
    COMMAND mfu_render_icon ${MFU_ICON_SVG} ${png} ${size}
    DEPENDS mfu_render_icon ${MFU_ICON_SVG}
    COMMENT "Rendering ${size}x${size} application icon" VERBATIM)
  list(APPEND MFU_ICON_PNGS ${png})
endforeach()
add_custom_target(mfu_icons ALL DEPENDS ${MFU_ICON_PNGS})

install(DIRECTORY ${CMAKE_BINARY_DIR}/icons/hicolor DESTINATION ${CMAKE_INSTALL_DATADIR}/icons)
install(FILES ${MFU_ICON_SVG} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${MFU_RESOURCES_DIR}/mfu-explorer.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${MFU_RESOURCES_DIR}/mfu-explorer-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
        RENAME mfu-explorer.xml)
install(FILES ${MFU_RESOURCES_DIR}/io.github.mfu_explorer.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/presets/ DESTINATION ${CMAKE_INSTALL_DATADIR}/mfu-explorer/presets
        FILES_MATCHING PATTERN "*.json")

include(${CMAKE_CURRENT_LIST_DIR}/Package.cmake)

# A shared-library tree (MFU_SHARED_LIBS, the dev and ASan presets) installs its libraries beside the binary's own
# folder so that an installed developer build runs; the release tree, which makes the package, is static.
if(MFU_SHARED_LIBS)
  install(TARGETS mfu_core mfu_cli mfu_widgets mfu_app LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/mfu-explorer)
  set_target_properties(mfu-explorer PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}/mfu-explorer")
  set_target_properties(mfu_cli mfu_widgets mfu_app PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()
