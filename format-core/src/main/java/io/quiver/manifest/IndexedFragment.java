package io.quiver.manifest;

import java.util.List;

/**
 * A fragment an {@link IndexSegment} covers, with the state of the indexed field it reflects: the files (base
 * data files, then overlay files, in manifest order) of the fragment that store any atomic field of the indexed
 * field's top-level column. The segment answers for the fragment at a version exactly when that version's
 * fragment has the same id, the same physical rows and the same {@link #sourceFilesOf source files}.
 */
public record IndexedFragment(long fragmentId, long physicalRows, List<String> sourceFiles) {
  public IndexedFragment {
    sourceFiles = List.copyOf(sourceFiles);
  }

  /** The source files of {@code fragment} for a column whose atomic fields are {@code columnFieldIds}. */
  public static List<String> sourceFilesOf(Fragment fragment, java.util.Set<Integer> columnFieldIds) {
    List<String> out = new java.util.ArrayList<>();
    for (DataFile file : fragment.files()) {
      if (file.fieldIds().stream().anyMatch(columnFieldIds::contains)) {
        out.add(file.path());
      }
    }
    for (Overlay overlay : fragment.overlays()) {
      if (overlay.dataFile().fieldIds().stream().anyMatch(columnFieldIds::contains)) {
        out.add(overlay.dataFile().path());
      }
    }
    return out;
  }

  /** Whether {@code fragment} is still in the state this entry records. */
  public boolean matches(Fragment fragment, java.util.Set<Integer> columnFieldIds) {
    return fragment.id() == fragmentId && fragment.physicalRows() == physicalRows
        && sourceFilesOf(fragment, columnFieldIds).equals(sourceFiles);
  }
}
