# What `cmake --install` puts where (GNU layout), and the Debian package CPack builds from it:
#   bin/fovea, bin/fovea-studio
#   share/fovea/models/*.ckpt and their cards, the encoder file (*.pt), share/fovea/samples/ (PNG + captions.json)
#   share/applications, share/metainfo, share/icons/hicolor: the desktop entry, AppStream, icon
#   share/man/man1: fovea.1 and fovea-studio.1, generated from --help when help2man is there
#   lib/python3/dist-packages/fovea: the Python module (python/CMakeLists.txt installs it), when built
# The programs find share/fovea from their own location (core/runtime/data_paths.h).
include(GNUInstallDirs)

install(TARGETS fovea RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET fovea-studio)
  install(TARGETS fovea-studio RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fovea/models
        FILES_MATCHING PATTERN "*.ckpt" PATTERN "*.pt" PATTERN "*.md")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/samples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fovea/samples)

set(FOVEA_APP_ID io.github.fovea.Studio)
if(TARGET fovea-studio)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/desktop/${FOVEA_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/desktop/${FOVEA_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/desktop/${FOVEA_APP_ID}.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()

# Manual pages from the programs' own --help (never out of date), compressed as Debian wants.
find_program(HELP2MAN help2man)
find_program(GZIP gzip)
if(HELP2MAN AND GZIP)
  set(man_pages ${CMAKE_BINARY_DIR}/man/fovea.1.gz)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/fovea.1.gz
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
                     COMMAND ${CMAKE_SOURCE_DIR}/packaging/man-commands.sh $<TARGET_FILE:fovea>
                             ${CMAKE_BINARY_DIR}/man/fovea-commands.h2m
                     COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section 1
                             --name "image captioning with visual attention (Show, Attend and Tell)"
                             --include ${CMAKE_BINARY_DIR}/man/fovea-commands.h2m
                             --output ${CMAKE_BINARY_DIR}/man/fovea.1 $<TARGET_FILE:fovea>
                     COMMAND ${GZIP} -9nf ${CMAKE_BINARY_DIR}/man/fovea.1
                     DEPENDS fovea ${CMAKE_SOURCE_DIR}/packaging/man-commands.sh VERBATIM)
  if(TARGET fovea-studio)
    list(APPEND man_pages ${CMAKE_BINARY_DIR}/man/fovea-studio.1.gz)
    add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/fovea-studio.1.gz
                       COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
                       COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
                               ${HELP2MAN} --no-info --no-discard-stderr --section 1
                               --name "captions and where the model looks, word by word"
                               --output ${CMAKE_BINARY_DIR}/man/fovea-studio.1 $<TARGET_FILE:fovea-studio>
                       COMMAND ${GZIP} -9nf ${CMAKE_BINARY_DIR}/man/fovea-studio.1
                       DEPENDS fovea-studio VERBATIM)
  endif()
  add_custom_target(man ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

# Debian's copyright and changelog, where lintian looks for them.
set(doc_dir ${CMAKE_INSTALL_DATADIR}/doc/fovea)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/copyright DESTINATION ${doc_dir})
if(GZIP)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/changelog.Debian.gz
                     COMMAND ${GZIP} -9nc ${CMAKE_SOURCE_DIR}/packaging/debian/changelog > ${CMAKE_BINARY_DIR}/changelog.Debian.gz
                     DEPENDS ${CMAKE_SOURCE_DIR}/packaging/debian/changelog)
  add_custom_target(debian_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/changelog.Debian.gz)
  install(FILES ${CMAKE_BINARY_DIR}/changelog.Debian.gz DESTINATION ${doc_dir})
endif()

# cpack -G DEB (packaging/build-deb.sh): dependencies from the shared libraries linked.
set(CPACK_PACKAGE_NAME fovea)
set(CPACK_PACKAGE_VENDOR "The Fovea developers")
set(CPACK_PACKAGE_CONTACT "The Fovea developers <fovea@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "image captioning with visual attention (Show, Attend and Tell)")
set(CPACK_PACKAGE_DESCRIPTION "Fovea captions images with the soft and hard attention models of
Show, Attend and Tell and shows where the model looks for each word:
fovea-studio, a desktop application (captions, attention, comparison,
training dashboards, figures), fovea, a command-line tool (train,
caption, eval, export), and the Python module fovea. Trained models for a built-in dataset of fashion
scenes are included.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)  # a Debian revision: the package is not native
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/fovea/fovea")
# Plugins Qt loads at run time (not linked, so shlibdeps cannot see them), and the dataset the
# built-in scenes and training are drawn from.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, qt6-image-formats-plugins, libqt6svg6, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "dataset-fashion-mnist")
if(TARGET fovea_python)
  # The module is built for one Python version (its file name says which) and hands out NumPy
  # arrays; torch tensors, fovea.show and DataFrames need the others when they are asked for.
  set(py ${PYTHON_VERSION_MAJOR}.${PYTHON_VERSION_MINOR})
  math(EXPR next_minor "${PYTHON_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS
         ", python3 (>= ${py}), python3 (<< ${PYTHON_VERSION_MAJOR}.${next_minor}), python3-numpy")
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", python3-torch, python3-matplotlib")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-pandas")
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
