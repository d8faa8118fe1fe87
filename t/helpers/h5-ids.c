/*
 * h5-ids.c - HDF5 with known ids for t/3210: creates h5.h5 with a dataset
 * of 256 ints, a group and an attribute on it, closes everything, opens
 * them again and reads them back.  Every H5D/H5G/H5A call must name
 * h5.h5 through the ids that H5Fcreate, H5Fopen, H5Dcreate2... returned.
 * Built both ways: h5cc -shlib (libhdf5 shared) and h5cc (static, the
 * H5 functions in the executable).
 */
#include <hdf5.h>
#include <stdio.h>
int main(void)
{
	int data[256], back[256], attr = 7;
	hsize_t dims[1] = { 256 }, one[1] = { 1 };
	hid_t f, s, d, g, as, a;

	for (int i = 0; i < 256; i++)
		data[i] = i;
	if ((f = H5Fcreate("h5.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		return 1;
	s = H5Screate_simple(1, dims, NULL);
	d = H5Dcreate2(f, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
		return 1;
	g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	as = H5Screate_simple(1, one, NULL);
	a = H5Acreate2(g, "a", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0 || a < 0 || H5Awrite(a, H5T_NATIVE_INT, &attr) < 0)
		return 1;
	H5Aclose(a); H5Sclose(as); H5Gclose(g); H5Dclose(d); H5Sclose(s);
	if (H5Fclose(f) < 0)
		return 1;
	if ((f = H5Fopen("h5.h5", H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
		return 1;
	d = H5Dopen2(f, "d", H5P_DEFAULT);
	g = H5Gopen2(f, "g", H5P_DEFAULT);
	a = H5Aopen(g, "a", H5P_DEFAULT);
	if (d < 0 || H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0 ||
	    H5Aread(a, H5T_NATIVE_INT, &attr) < 0)
		return 1;
	H5Aclose(a); H5Gclose(g); H5Dclose(d);
	if (H5Fclose(f) < 0)
		return 1;
	for (int i = 0; i < 256; i++)
		if (back[i] != i)
			return 1;
	return attr == 7 ? 0 : 1;
}
